package cloudrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

const providerName = "cloudrun"

// Bounds for calls that do not run a command: control calls, files, and snapshots, which move whole workspaces.
const (
	callTimeout     = 2 * time.Minute
	snapshotTimeout = 15 * time.Minute
)

// client talks to one gateway.
type client struct {
	base   string // the gateway's URL, without a trailing slash
	secret string
	cfg    Config
	http   *http.Client
}

// call is one request to the gateway.
type call struct {
	op          string // what we asked, for errors: "create", "execute", …
	method      string
	path        string
	query       url.Values
	body        io.Reader
	contentType string
	accept      string
	noAuth      bool
}

// jsonBody encodes v for a call.
func jsonBody(v any) (io.Reader, string) {
	raw, _ := json.Marshal(v)
	return bytes.NewReader(raw), "application/json"
}

// send makes the call and returns a 2xx response; anything else is a *provider.Error.
func (c *client) send(ctx context.Context, k call) (*http.Response, error) {
	u := c.base + k.path
	if len(k.query) > 0 {
		u += "?" + k.query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, k.method, u, k.body)
	if err != nil {
		return nil, provider.Errorf(provider.ErrInvalidConfig, providerName, k.op, "bad gateway url: %v", err)
	}
	if !k.noAuth {
		req.Header.Set("Authorization", "Bearer "+c.secret)
	}
	if k.contentType != "" {
		req.Header.Set("Content-Type", k.contentType)
	}
	req.Header.Set("Accept", orDefault(k.accept, "application/json"))
	req.Header.Set("User-Agent", "auxilia-cloudrun")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(ctx, k.op, err)
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, answerError(k.op, resp)
}

// callJSON makes the call and decodes its JSON answer into out (unless nil).
func (c *client) callJSON(ctx context.Context, k call, out any) error {
	resp, err := c.send(ctx, k)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(out); err != nil {
		return provider.Errorf(provider.ErrFailed, providerName, k.op, "the gateway answered %s with unreadable JSON: %v", resp.Status, err)
	}
	return nil
}

// reasonKinds sorts the gateway's stable reasons into the contract's error kinds.
var reasonKinds = map[string]error{
	"unauthorized":          provider.ErrUnauthorized,
	"secret_not_configured": provider.ErrUnauthorized,
	"sandbox_not_found":     provider.ErrGone,
	"snapshot_not_found":    provider.ErrGone,
	"file_not_found":        provider.ErrNotFound,
	"validation_failed":     provider.ErrInvalidConfig,
	"no_bucket":             provider.ErrInvalidConfig,
	"bucket_not_found":      provider.ErrInvalidConfig,
	"storage_denied":        provider.ErrInvalidConfig,
}

// answerError turns a gateway's error answer into a *provider.Error with its words.
func answerError(op string, resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var p problem
	msg := ""
	if json.Unmarshal(raw, &p) == nil && (p.Detail != "" || p.Reason != "") {
		msg = orDefault(p.Detail, p.Title)
	} else {
		// Not the gateway's problem document: some other server answers at this url.
		msg = fmt.Sprintf("%s from a server that does not answer as the Auxilia gateway", resp.Status)
		if body := strings.TrimSpace(string(raw)); body != "" && len(body) <= 200 {
			msg += ": " + body
		}
	}
	kind, ok := reasonKinds[p.Reason]
	if !ok {
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			kind = provider.ErrUnauthorized
		case http.StatusRequestTimeout, http.StatusGatewayTimeout:
			kind = provider.ErrTimeout
		default:
			kind = provider.ErrFailed
		}
	}
	return &gatewayError{reason: p.Reason, err: provider.Errorf(kind, providerName, op, "%s", msg)}
}

// gatewayError is a *provider.Error that remembers the gateway's reason.
type gatewayError struct {
	reason string
	err    *provider.Error
}

func (e *gatewayError) Error() string { return e.err.Error() }
func (e *gatewayError) Unwrap() error { return e.err }

// hasReason reports whether err is the gateway's answer with that reason.
func hasReason(err error, reason string) bool {
	var ge *gatewayError
	return errors.As(err, &ge) && ge.reason == reason
}

// problemError is answerError for a problem that arrived inside an event stream.
func problemError(op string, p problem) error {
	kind, ok := reasonKinds[p.Reason]
	if !ok {
		kind = provider.ErrFailed
	}
	return provider.Errorf(kind, providerName, op, "%s", orDefault(p.Detail, p.Title))
}

// transportError sorts a failure to get an answer at all.
func transportError(ctx context.Context, op string, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return provider.Errorf(provider.ErrTimeout, providerName, op, "the gateway did not answer in time")
	case ctx.Err() != nil:
		return provider.Errorf(provider.ErrFailed, providerName, op, "the call was cancelled")
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is known to the caller; the cause is what matters
	}
	return provider.Errorf(provider.ErrUnreachable, providerName, op, "%v", err)
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
