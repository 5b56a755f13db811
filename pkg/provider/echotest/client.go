package echotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Bounds of the calls that run no command.
const (
	callTimeout = time.Minute
	// readyWithin is how long a new instance may take to be ready.
	readyWithin = 30 * time.Second
)

// readiness polls an instance until it is ready.
var readiness = provider.Poll{Backoff: provider.Backoff{First: 10 * time.Millisecond, Max: 500 * time.Millisecond}, Within: readyWithin}

// client drives the instances of one echo server.
type client struct {
	base   string // the server's URL, without a trailing slash
	cfg    Config
	caller *provider.Caller
}

func newClient(base, secret string, cfg Config, p provider.Policy) *client {
	return &client{base: base, cfg: cfg, caller: &provider.Caller{
		Provider: providerName,
		HTTP:     provider.NewHTTPClient(p),
		Secret:   secret,
		Auth:     func(h http.Header) { h.Set("Authorization", "Bearer "+secret) },
		Timeout:  callTimeout,
		Refused:  refused,
	}}
}

// call is a call to the server: a route below the base, with its query
// and a JSON body (nil for none).
func (c *client) call(op, method, route string, query url.Values, body any) provider.Call {
	k := provider.Call{Op: op, Method: method, URL: c.base + route}
	if len(query) > 0 {
		k.URL += "?" + query.Encode()
	}
	if body != nil {
		raw, _ := json.Marshal(body)
		k.Body, k.ContentType = bytes.NewReader(raw), "application/json"
	}
	return k
}

// refused words the server's refusal document as the contract's error.
func refused(op string, a provider.Answer) error {
	var r refusal
	if json.Unmarshal(a.Body, &r) != nil || r.Code == "" {
		return provider.Errorf(provider.StatusKind(a.Status), providerName, op, "%s", provider.Clip(provider.StatusWords(a), 200))
	}
	kind, ok := refusalKinds[r.Code]
	if !ok {
		kind = provider.StatusKind(a.Status)
	}
	return provider.Errorf(kind, providerName, op, "%s: %s", r.Code, provider.Clip(r.Message, 200))
}

// Probe lists the instances of a creation no one made: a call that takes
// the token and finds nothing.
func (c *client) Probe(ctx context.Context) error {
	return c.caller.JSON(ctx, c.call("probe", http.MethodGet, "/instances", url.Values{labelInstance: {"probe"}}, nil), nil)
}

// Create asks for an instance and waits until it is ready. When the answer
// is lost the instance may exist all the same: it is looked for by its
// creation label, and used, or destroyed when the caller has left.
func (c *client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	return c.create(ctx, labels, "")
}

// create makes an instance, from the snapshot when one is named.
func (c *client) create(ctx context.Context, labels provider.Labels, snapshotID string) (provider.Instance, error) {
	const op = "create"
	creation := labels.Instance
	if creation == "" {
		creation = randomHex(8)
	}
	req := createRequest{WorkDir: c.cfg.WorkDir, Labels: labelMap(labels, creation), SnapshotID: snapshotID}
	var made instance
	err := c.caller.JSON(ctx, c.call(op, http.MethodPost, "/instances", nil, req), &made)
	if err != nil {
		if errors.Is(err, provider.ErrUnauthorized) || errors.Is(err, provider.ErrInvalidConfig) {
			return provider.Instance{}, err // refused: nothing was made
		}
		destroy := func(ctx context.Context, in instance) { _ = c.destroy(ctx, in.ID) }
		found, ok := c.createdBy(creation).Salvage(ctx, callTimeout, destroy)
		if !ok {
			return provider.Instance{}, err
		}
		made = found
	}
	provider.Created(ctx, made.ID)
	ready, err := c.waitReady(ctx, op, made.ID)
	if err != nil {
		cleanup, cancel := context.WithTimeout(context.WithoutCancel(ctx), callTimeout)
		defer cancel()
		_ = c.destroy(cleanup, made.ID)
		return provider.Instance{}, err
	}
	return ready, nil
}

// waitReady looks at the instance until it is ready.
func (c *client) waitReady(ctx context.Context, op, id string) (provider.Instance, error) {
	var seen instance
	err := readiness.Until(ctx, func(ctx context.Context) (string, bool, error) {
		err := c.caller.JSON(ctx, c.call(op, http.MethodGet, instancePath(id, ""), nil, nil), &seen)
		return seen.State, err == nil && seen.State == stateReady, err
	})
	var still *provider.StillError
	if errors.As(err, &still) {
		return provider.Instance{}, provider.Errorf(provider.ErrTimeout, providerName, op, "instance %s is %v", id, still)
	}
	if err != nil {
		return provider.Instance{}, err
	}
	return provider.Instance{ID: seen.ID, WorkDir: seen.WorkDir}, nil
}

// Reconnect finds the instance again, ready: a paused one is resumed first.
func (c *client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	const op = "reconnect"
	var seen instance
	if err := c.caller.JSON(ctx, c.call(op, http.MethodGet, instancePath(inst.ID, ""), nil, nil), &seen); err != nil {
		return provider.Instance{}, err
	}
	if seen.State == statePaused {
		if err := c.caller.JSON(ctx, c.call(op, http.MethodPost, instancePath(inst.ID, "/resume"), nil, nil), nil); err != nil {
			return provider.Instance{}, err
		}
	} else if seen.State == stateReady {
		return provider.Instance{ID: seen.ID, WorkDir: seen.WorkDir}, nil
	}
	return c.waitReady(ctx, op, inst.ID)
}

// KeepAlive looks at the instance: echo instances do not expire, but a
// gone one is said to be.
func (c *client) KeepAlive(ctx context.Context, inst provider.Instance) error {
	return c.caller.JSON(ctx, c.call("keepalive", http.MethodGet, instancePath(inst.ID, ""), nil, nil), nil)
}

// Persist does nothing: instances keep their files while they live.
func (c *client) Persist(context.Context, provider.Instance) error { return nil }

// Destroy removes the instance; a gone one is no error.
func (c *client) Destroy(ctx context.Context, inst provider.Instance) error {
	return c.destroy(ctx, inst.ID)
}

func (c *client) destroy(ctx context.Context, id string) error {
	err := c.caller.JSON(ctx, c.call("destroy", http.MethodDelete, instancePath(id, ""), nil, nil), nil)
	if errors.Is(err, provider.ErrGone) {
		return nil
	}
	return err
}

// FindCreated finds the instance a Create with these labels made.
func (c *client) FindCreated(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	if labels.Instance == "" {
		return provider.Instance{}, false, nil
	}
	found, ok, err := c.createdBy(labels.Instance).Find(ctx)
	if err != nil || !ok {
		return provider.Instance{}, false, err
	}
	return provider.Instance{ID: found.ID, WorkDir: found.WorkDir}, true, nil
}

// createdBy is the search for the instance of one creation: the server
// filters by label, and the label is checked again.
func (c *client) createdBy(creation string) provider.Search[instance] {
	return provider.Search[instance]{
		List: func(ctx context.Context) ([]instance, error) {
			var answer listAnswer
			err := c.caller.JSON(ctx, c.call("find", http.MethodGet, "/instances", url.Values{labelInstance: {creation}}, nil), &answer)
			return answer.Instances, err
		},
		Match: func(in instance) bool { return in.ID != "" && in.Labels[labelInstance] == creation },
	}
}

// instancePath is an instance's route; escaping keeps a stored id from bending it.
func instancePath(id, rest string) string { return "/instances/" + url.PathEscape(id) + rest }

// labelMap is the labels as the server keeps them.
func labelMap(l provider.Labels, creation string) map[string]string {
	return map[string]string{"workspace": l.Workspace, "sandbox": l.Sandbox, "thread": l.Thread, labelInstance: creation}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
