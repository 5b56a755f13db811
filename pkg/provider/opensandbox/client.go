package opensandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// apiKeyHeader carries the controller's API key.
const apiKeyHeader = "OPEN-SANDBOX-API-KEY"

// Defaults for the bounds a Kind leaves unset.
const (
	defaultReadyTimeout   = 3 * time.Minute
	defaultRequestTimeout = time.Minute
)

// maxErrorBody is as much of an error answer as is worth reading.
const maxErrorBody = 64 << 10

// client drives the instances of one registered OpenSandbox controller.
type client struct {
	controller     string // the controller's URL, where its server proxy lives
	api            string // the lifecycle API: the controller's URL + "/v1"
	apiKey         string
	cfg            *Config
	http           *http.Client
	readyTimeout   time.Duration
	requestTimeout time.Duration
}

func newClient(k Kind, s provider.Settings) (*client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok || cfg == nil {
		return nil, fmt.Errorf("opensandbox: config is %T, not *opensandbox.Config", s.Config)
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("opensandbox: url %q is not an http(s) URL", s.URL)
	}
	controller := strings.TrimSuffix(s.URL, "/")
	c := &client{
		controller:     controller,
		api:            controller + "/v1",
		apiKey:         s.Secret,
		cfg:            cfg,
		readyTimeout:   orDefault(k.ReadyTimeout, defaultReadyTimeout),
		requestTimeout: orDefault(k.RequestTimeout, defaultRequestTimeout),
		http: &http.Client{
			Transport: provider.NewTransport(s.Policy),
			// Redirects would carry the API key and access headers elsewhere: never follow them.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	return c, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// request is one call to the lifecycle API or to an execd.
type request struct {
	surface     surface
	op          string // what we ask, for errors: "create", "read file", …
	method      string
	url         string
	headers     map[string]string
	body        io.Reader
	contentType string
	// timeout bounds the call instead of the request timeout, when set.
	timeout time.Duration
}

// jsonBody encodes v as a request body.
func jsonBody(v any) (io.Reader, string) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("opensandbox: encoding %T: %v", v, err)) // our own types always encode
	}
	return bytes.NewReader(b), "application/json"
}

// lifecycle returns a request to the lifecycle API.
func (c *client) lifecycle(op, method, path string, in any) request {
	r := request{surface: lifecycleAPI, op: op, method: method, url: c.api + path, headers: map[string]string{}}
	if c.apiKey != "" {
		r.headers[apiKeyHeader] = c.apiKey
	}
	if in != nil {
		r.body, r.contentType = jsonBody(in)
	}
	return r
}

// send performs r and returns the answer when it is a success; the caller
// closes its body. Any other answer becomes a provider error.
func (c *client) send(ctx context.Context, r request) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, r.method, r.url, r.body)
	if err != nil {
		return nil, failure(provider.ErrFailed, r.op, "building the request: %s", err)
	}
	req.Header.Set("Accept", "application/json")
	if r.contentType != "" {
		req.Header.Set("Content-Type", r.contentType)
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, transportError(r.op, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, statusError(r.surface, r.op, resp.StatusCode, body)
	}
	return resp, nil
}

// do performs r within the request timeout and decodes its JSON answer
// into out, when out is not nil.
func (c *client) do(ctx context.Context, r request, out any) error {
	body, err := c.fetch(ctx, r)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return failure(provider.ErrFailed, r.op, "malformed answer (%s): %q", err, snippet(body))
	}
	return nil
}

// fetch performs r within the request timeout and returns its body.
func (c *client) fetch(ctx context.Context, r request) ([]byte, error) {
	body, err := c.open(ctx, r)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return io.ReadAll(body)
}

// open performs r within the request timeout and returns its body to read
// as it arrives; closing it ends the call.
func (c *client) open(ctx context.Context, r request) (io.ReadCloser, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(r.timeout, c.requestTimeout))
	resp, err := c.send(ctx, r)
	if err != nil {
		cancel()
		return nil, err
	}
	return provider.NewStream(resp.Body, func(err error) error { return transportError(r.op, err) }, cancel), nil
}

// detached returns a context for clean-up work that must run even when ctx
// has been cancelled.
func (c *client) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.requestTimeout)
}
