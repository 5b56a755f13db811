package daytona

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Client drives the Daytona sandboxes of one registered sandbox: the control
// plane at its URL, each sandbox's toolbox behind the toolbox proxy.
type Client struct {
	api    string // the control plane, with its /api prefix
	apiKey string
	cfg    *Config
	waits  Waits
	http   *http.Client
	caller *provider.Caller
	// withoutSessions holds the instances whose daemon has no sessions.
	withoutSessions sync.Map
	// withoutPause is set once the control plane has answered that it has
	// no POST /sandbox/{id}/pause (before Daytona v0.190): Pause stops.
	withoutPause atomic.Bool
}

var _ provider.Client = (*Client)(nil)

func newClient(k Kind, s provider.Settings) (*Client, error) {
	cfg, ok := s.Config.(*Config)
	if !ok || cfg == nil {
		return nil, fmt.Errorf("daytona: config is %T, not *daytona.Config", s.Config)
	}
	raw := s.URL
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("daytona: url %q is not an http(s) URL", s.URL)
	}
	c := &Client{
		api:    strings.TrimSuffix(raw, "/"),
		apiKey: s.Secret,
		cfg:    cfg,
		waits:  k.Waits.withDefaults(),
		http:   provider.NewHTTPClient(s.Policy),
	}
	c.caller = &provider.Caller{
		Provider:  providerName,
		HTTP:      c.http,
		Secret:    c.apiKey,
		Auth:      func(h http.Header) { h.Set("Authorization", "Bearer "+c.apiKey) },
		Timeout:   c.waits.Request,
		MaxAnswer: maxAnswer,
		Refused:   controlPlaneRefusal,
	}
	return c, nil
}

// CloseIdleConnections lets go of kept-alive connections (tests use it to
// leave no goroutines behind).
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// apiKeyAnswer is the part of GET /api-keys/current the probe checks.
type apiKeyAnswer struct {
	Name  *string `json:"name"`
	Value *string `json:"value"`
	// Permissions are what the key may do; nil when the server does not say.
	Permissions []string `json:"permissions"`
}

// neededPermissions are what a run asks of the key: to create and start
// sandboxes, and to delete them.
var neededPermissions = []string{"write:sandboxes", "delete:sandboxes"}

// missing returns the needed permissions the key lacks.
func (k apiKeyAnswer) missing() []string {
	if k.Permissions == nil {
		return nil
	}
	var out []string
	for _, p := range neededPermissions {
		if !slices.Contains(k.Permissions, p) {
			out = append(out, p)
		}
	}
	return out
}

// Probe reads the API key's own record: the cheapest call that needs a
// valid key, and one that needs no permission. It tells the permissions a
// run needs and the key lacks, which Daytona would refuse on the first run.
func (c *Client) Probe(ctx context.Context) error {
	const op = "probe"
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodGet, "/api-keys/current", nil))
	if err != nil {
		return err
	}
	switch {
	case ans.Status == http.StatusOK:
		var key apiKeyAnswer
		if json.Unmarshal(ans.Body, &key) != nil || (key.Name == nil && key.Value == nil) {
			// Daytona serves its dashboard's page for any path outside /api.
			return failure(provider.ErrInvalidConfig, op, "%s answered with something other than Daytona's API (does the URL end in /api?)", c.api)
		}
		if lacks := key.missing(); len(lacks) > 0 {
			return failure(provider.ErrUnauthorized, op, "the API key lacks %s, which runs need: make a key with %s", strings.Join(lacks, " and "), strings.Join(neededPermissions, " and "))
		}
		return nil
	case ans.Status == http.StatusNotFound:
		return failure(provider.ErrInvalidConfig, op, "%s (is %s Daytona's API URL?)", describe(ans), c.api)
	default:
		return c.controlPlaneError(op, ans)
	}
}

// Persist does nothing: a Daytona sandbox keeps its files while stopped or archived.
func (c *Client) Persist(context.Context, provider.Instance) error { return nil }
