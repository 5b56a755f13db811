package opensandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
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

// client drives the instances of one registered OpenSandbox controller.
type client struct {
	controller string // the controller's URL, where its server proxy lives
	api        string // the lifecycle API: the controller's URL + "/v1"
	apiKey     string
	cfg        *Config
	http       *http.Client
	// The lifecycle API and execd speak different error dialects: each has
	// a caller of its own.
	lifecycleCaller, execdCaller *provider.Caller
	readyTimeout, requestTimeout time.Duration
	// execdFailed holds the execds (by base URL) a call to which failed
	// since the last reconnect: the next one asks whether they are there.
	execdFailed sync.Map
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
		http:           provider.NewHTTPClient(s.Policy),
	}
	c.lifecycleCaller = c.caller(lifecycleAPI)
	c.execdCaller = c.caller(execdAPI)
	c.lifecycleCaller.Auth = func(h http.Header) {
		if c.apiKey != "" {
			h.Set(apiKeyHeader, c.apiKey)
		}
	}
	return c, nil
}

// caller returns a caller for one of the two APIs. Files and listings are
// streamed; any other answer is small and read whole.
func (c *client) caller(s surface) *provider.Caller {
	return &provider.Caller{
		Provider: providerName,
		HTTP:     c.http,
		Secret:   c.apiKey,
		Refused:  func(op string, a provider.Answer) error { return statusError(s, op, a.Status, a.Body) },
	}
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// request is one call to the lifecycle API or to an execd, and the caller
// that speaks its dialect.
type request struct {
	provider.Call
	api   *provider.Caller
	execd string // the base URL of the execd called, if one is
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
	r := request{Call: provider.Call{Op: op, Method: method, URL: c.api + path}, api: c.lifecycleCaller}
	if in != nil {
		r.Body, r.ContentType = jsonBody(in)
	}
	return r
}

// send performs r with no bound but ctx and returns the body of its
// successful answer, to read as it arrives; closing it ends the call. Any
// other answer becomes a provider error.
func (c *client) send(ctx context.Context, r request) (io.ReadCloser, error) {
	r.Stream = true
	a, err := r.api.Send(ctx, r.Call)
	if err != nil {
		c.noteFailure(ctx, r, err)
		return nil, err
	}
	return a.Stream, nil
}

// noteFailure remembers an execd that failed a call, unless the caller
// left or the failure is execd's own answer about a missing file.
func (c *client) noteFailure(ctx context.Context, r request, err error) {
	if r.execd != "" && ctx.Err() == nil && !errors.Is(err, provider.ErrNotFound) {
		c.execdFailed.Store(r.execd, struct{}{})
	}
}

// do performs r within the request timeout and decodes its JSON answer
// into out, when out is not nil.
func (c *client) do(ctx context.Context, r request, out any) error {
	r.Timeout = orDefault(r.Timeout, c.requestTimeout)
	err := r.api.JSON(ctx, r.Call, out)
	if err != nil {
		c.noteFailure(ctx, r, err)
	}
	return err
}

// open performs r within the request timeout and returns its body to read
// as it arrives; closing it ends the call.
func (c *client) open(ctx context.Context, r request) (io.ReadCloser, error) {
	r.Timeout = orDefault(r.Timeout, c.requestTimeout)
	return c.send(ctx, r)
}

// detached returns a context for clean-up work that must run even when ctx
// has been cancelled.
func (c *client) detached(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.requestTimeout)
}
