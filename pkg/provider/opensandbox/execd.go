package opensandbox

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// execd returns a request to the execd of the instance t points at.
func (c *client) execd(t execdTarget, op, method, path string, query url.Values) request {
	u := t.BaseURL + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	r := request{Call: provider.Call{Op: op, Method: method, URL: u, Header: make(http.Header, len(t.Headers)+1)}, api: c.execdCaller, execd: t.BaseURL}
	for k, v := range t.Headers {
		r.Header.Set(k, v)
	}
	if t.Proxied && c.apiKey != "" {
		r.Header.Set(apiKeyHeader, c.apiKey) // the proxy strips it before execd
		// The server names no execd token. The official SDKs send the API
		// key as one behind the proxy, which hands it to the sandbox: only
		// when the settings say execd was started with it.
		if c.cfg.ExecdTokenIsAPIKey && r.Header.Get(execdTokenHeader) == "" {
			r.Header.Set(execdTokenHeader, c.apiKey)
		}
	}
	return r
}

// execdTokenHeader carries execd's access token.
const execdTokenHeader = "X-EXECD-ACCESS-TOKEN"

// target reads the instance's execd endpoint from its State.
func target(inst provider.Instance, op string) (execdTarget, error) {
	t, err := decodeTarget(inst.State)
	if err != nil {
		return t, failure(provider.ErrFailed, op, "instance %s: %s", inst.ID, err)
	}
	return t, nil
}

// ping asks execd whether it is up.
func (c *client) ping(ctx context.Context, t execdTarget) error {
	return c.do(ctx, c.execd(t, "ping", "GET", "/ping", nil), nil)
}

// makeDir creates dir and its parents (mkdir -p).
func (c *client) makeDir(ctx context.Context, t execdTarget, dir string) error {
	r := c.execd(t, "make directory", "POST", "/directories", nil)
	r.Body, r.ContentType = jsonBody(map[string]permission{dir: {Mode: 755}})
	return c.do(ctx, r, nil)
}

// permission is execd's file mode, written as octal digits in a decimal number.
type permission struct {
	Mode int `json:"mode"`
}

// filePath resolves p inside the instance (relative paths are relative to
// its WorkDir). execd expands $VAR in every path it is given, with no way
// to escape it, so a path with a $ cannot be addressed as it is written.
func filePath(inst provider.Instance, op, p string) (string, error) {
	if strings.Contains(p, "$") {
		return "", failure(provider.ErrFailed, op, "execd expands $ in paths, so %q cannot be reached through its file API", p)
	}
	if path.IsAbs(p) {
		return path.Clean(p), nil
	}
	return path.Join(inst.WorkDir, p), nil
}
