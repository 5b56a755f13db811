package e2b

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Client drives the E2B sandboxes of one registered sandbox: the control
// plane at its URL, each sandbox's envd at its own address.
type Client struct {
	api    string
	apiKey string
	cfg    *Config
	http   *http.Client
	caller *provider.Caller
	// envd sends the calls to the daemons, with each sandbox's own token.
	envdCaller *provider.Caller
}

var _ provider.Client = (*Client)(nil)

// requestTimeout bounds a call that is not a command's stream.
const requestTimeout = 60 * time.Second

func newClient(s provider.Settings) (*Client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok || cfg == nil {
		return nil, fmt.Errorf("e2b: config is %T, not *e2b.Config", s.Config)
	}
	raw := s.URL
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("e2b: url %q is not an http(s) URL", s.URL)
	}
	c := &Client{api: strings.TrimSuffix(raw, "/"), apiKey: s.Secret, cfg: cfg, http: provider.NewHTTPClient(s.Policy)}
	c.caller = &provider.Caller{
		Provider: providerName,
		HTTP:     c.http,
		Secret:   c.apiKey,
		Auth:     func(h http.Header) { h.Set("X-API-Key", c.apiKey) },
		Timeout:  requestTimeout,
		Refused:  controlPlaneRefusal,
	}
	c.envdCaller = &provider.Caller{Provider: providerName, HTTP: c.http, Secret: c.apiKey, Refused: envdRefusal}
	return c, nil
}

// CloseIdleConnections lets go of kept-alive connections (tests use it to
// leave no goroutines behind).
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// Probe looks the template up: a call that needs a valid key, and one
// that tells a template the key cannot create sandboxes from, which every
// run would otherwise fail on. It is looked up by alias, then by id
// (GET /templates/{templateID}): an alias unknown may still be a
// template's id.
func (c *Client) Probe(ctx context.Context) error {
	const op = "probe"
	var unknown provider.Answer
	for _, path := range []string{"/templates/aliases/", "/templates/"} {
		a, err := c.caller.Do(ctx, provider.Call{Op: op, Method: http.MethodGet, URL: c.api + path + url.PathEscape(c.cfg.Template)})
		switch {
		case err != nil:
			return err
		case a.OK():
			return nil
		case a.Status != http.StatusNotFound && (a.Status != http.StatusForbidden || badKey(a.Body)):
			return c.caller.Refusal(op, a)
		}
		unknown = a
	}
	return failure(provider.ErrInvalidConfig, op, "template %q: %s", c.cfg.Template, words(unknown))
}

// Persist does nothing: an E2B sandbox keeps its files while paused.
func (c *Client) Persist(context.Context, provider.Instance) error { return nil }

// state is what an instance's State holds: how its envd is reached.
type state struct {
	Domain      string `json:"domain,omitempty"`
	AccessToken string `json:"envdAccessToken,omitempty"`
}

func readState(inst provider.Instance) state {
	var s state
	_ = json.Unmarshal(inst.State, &s)
	return s
}

func (s state) raw() json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

var _ provider.SaveChecker = (*Client)(nil)

// CheckSave refuses a template E2B does not have, or that the key's team
// cannot use, on the template field; whatever else the lookup meets is
// left to the probe.
func (c *Client) CheckSave(ctx context.Context) []provider.FieldError {
	var pe *provider.Error
	if err := c.Probe(ctx); errors.As(err, &pe) && errors.Is(err, provider.ErrInvalidConfig) {
		return []provider.FieldError{{Field: "template", Message: "E2B has no such template for this API key: " + pe.Message}}
	}
	return nil
}
