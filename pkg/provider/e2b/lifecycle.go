package e2b

import (
	"context"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// newSandbox is the create's body (NewSandbox in spec/openapi.yml).
type newSandbox struct {
	TemplateID    string            `json:"templateID"`
	Timeout       int               `json:"timeout"`
	AutoPause     bool              `json:"autoPause"`
	Metadata      map[string]string `json:"metadata,omitempty"`
	EnvVars       map[string]string `json:"envVars,omitempty"`
	AllowInternet *bool             `json:"allow_internet_access,omitempty"`
	Network       *network          `json:"network,omitempty"`
}

// sandbox is the create's and the connect's answer (Sandbox in spec/openapi.yml).
type sandbox struct {
	SandboxID       string  `json:"sandboxID"`
	EnvdAccessToken string  `json:"envdAccessToken"`
	Domain          *string `json:"domain"`
}

// defaultDomain is where hosted sandboxes are served when the answer names none.
const defaultDomain = "e2b.app"

func (s sandbox) state() state {
	st := state{Domain: defaultDomain, AccessToken: s.EnvdAccessToken}
	if s.Domain != nil && *s.Domain != "" {
		st.Domain = *s.Domain
	}
	return st
}

// metadata are our labels, as the sandbox's metadata.
func metadata(l provider.Labels) map[string]string {
	m := map[string]string{"auxilia": "true"}
	for k, v := range map[string]string{"auxilia_workspace": l.Workspace, "auxilia_sandbox": l.Sandbox,
		"auxilia_thread": l.Thread, "auxilia_instance": l.Instance} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}

// Create makes a sandbox from the template (POST /sandboxes), which
// answers once it runs, and asks its envd where commands run.
func (c *Client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	return c.create(ctx, "create", c.cfg.Template, labels)
}

func (c *Client) create(ctx context.Context, op, template string, labels provider.Labels) (provider.Instance, error) {
	allow, net := c.cfg.egress()
	body := newSandbox{TemplateID: template, Timeout: c.cfg.lifetimeSeconds(), AutoPause: c.cfg.AutoPause,
		Metadata: metadata(labels), EnvVars: c.cfg.Env, AllowInternet: allow, Network: net}
	sb, err := c.createSandbox(ctx, op, body, labels.Instance)
	if err != nil {
		return provider.Instance{}, err
	}
	if sb.SandboxID == "" {
		return provider.Instance{}, failure(provider.ErrFailed, op, "the answer names no sandbox")
	}
	provider.Created(ctx, sb.SandboxID)
	inst := provider.Instance{ID: sb.SandboxID, State: sb.state().raw()}
	dir, err := c.workDir(ctx, inst)
	if err != nil {
		_ = c.Destroy(context.WithoutCancel(ctx), inst)
		return provider.Instance{}, err
	}
	inst.WorkDir = dir
	return inst, nil
}

// createSandbox asks for a sandbox. When the answer is lost (no answer, a
// timeout, a server error) the sandbox may exist all the same: it is
// looked for by its creation label and, when the caller is still there,
// connected to for its envd token; when the caller has left, it is killed,
// so that nothing is left behind.
func (c *Client) createSandbox(ctx context.Context, op string, body newSandbox, creation string) (sandbox, error) {
	var sb sandbox
	a, err := c.send(ctx, op, http.MethodPost, "/sandboxes", body)
	switch {
	case err == nil && a.OK():
		return sb, c.caller.Decode(op, a.Body, &sb)
	case err == nil:
		err = c.caller.Refusal(op, a)
		if a.Status < http.StatusInternalServerError || creation == "" {
			return sandbox{}, err
		}
	case creation == "":
		return sandbox{}, err
	}
	kill := func(ctx context.Context, found listedSandbox) {
		_ = c.Destroy(ctx, provider.Instance{ID: found.SandboxID})
	}
	found, ok := c.createdBy(creation).Salvage(ctx, requestTimeout, kill)
	if !ok {
		return sandbox{}, err
	}
	if cerr := c.controlPlane(ctx, op, http.MethodPost, sandboxPath(found.SandboxID, "/connect"),
		map[string]int{"timeout": c.cfg.lifetimeSeconds()}, &sb); cerr != nil {
		_ = c.Destroy(context.WithoutCancel(ctx), provider.Instance{ID: found.SandboxID})
		return sandbox{}, err
	}
	return sb, nil
}

// Reconnect connects to the sandbox (POST /sandboxes/{id}/connect), which
// resumes a paused one and renews its lifetime in the same call: one call
// on a warm run.
//
// A sandbox E2B paused by itself (its lifetime ended, with autoPause)
// resumes with the network it was paused with, and a paused sandbox takes
// no network update (404: it is not in the running store): so the one the
// connect resumed (201, where a running one answers 200) is given the
// config's network before it is used.
func (c *Client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	const op = "reconnect"
	a, err := c.send(ctx, op, http.MethodPost, sandboxPath(inst.ID, "/connect"), map[string]int{"timeout": c.cfg.lifetimeSeconds()})
	switch {
	case err != nil:
		return provider.Instance{}, err
	case !a.OK():
		return provider.Instance{}, c.caller.Refusal(op, a)
	}
	var sb sandbox
	if err := c.caller.Decode(op, a.Body, &sb); err != nil {
		return provider.Instance{}, err
	}
	inst.State = sb.state().raw()
	if a.Status == http.StatusCreated {
		if err := c.UpdateNetwork(ctx, inst); err != nil {
			// Paused again, it is resumed, and given the rules, by the next connect.
			pause, cancel := context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
			defer cancel()
			_ = c.Pause(pause, inst)
			return provider.Instance{}, err
		}
	}
	return inst, nil
}

// KeepAlive sets the sandbox's lifetime anew from now (POST …/timeout).
func (c *Client) KeepAlive(ctx context.Context, inst provider.Instance) error {
	return c.controlPlane(ctx, "keep alive", http.MethodPost, sandboxPath(inst.ID, "/timeout"),
		map[string]int{"timeout": c.cfg.lifetimeSeconds()}, nil)
}

// Pause pauses the sandbox with its memory (POST …/pause); E2B answers
// 409 for one already paused.
func (c *Client) Pause(ctx context.Context, inst provider.Instance) error {
	const op = "pause"
	a, err := c.send(ctx, op, http.MethodPost, sandboxPath(inst.ID, "/pause"), map[string]bool{"memory": true})
	if err != nil {
		return err
	}
	if a.OK() || a.Status == http.StatusConflict {
		return nil
	}
	return c.caller.Refusal(op, a)
}

// Destroy kills the sandbox (DELETE /sandboxes/{id}); one gone is not an error.
func (c *Client) Destroy(ctx context.Context, inst provider.Instance) error {
	const op = "destroy"
	a, err := c.send(ctx, op, http.MethodDelete, sandboxPath(inst.ID, ""), nil)
	if err != nil || a.OK() || a.Status == http.StatusNotFound {
		return err
	}
	return c.caller.Refusal(op, a)
}

func sandboxPath(id, rest string) string { return "/sandboxes/" + url.PathEscape(id) + rest }

// send makes one control-plane call and returns its answer, whatever its status.
func (c *Client) send(ctx context.Context, op, method, path string, body any) (provider.Answer, error) {
	call, err := c.caller.JSONCall(op, method, c.api+path, body, "")
	if err != nil {
		return provider.Answer{}, err
	}
	return c.caller.Do(ctx, call)
}

// controlPlane makes a call that must succeed and decodes its answer into out (nil: dropped).
func (c *Client) controlPlane(ctx context.Context, op, method, path string, body, out any) error {
	call, err := c.caller.JSONCall(op, method, c.api+path, body, "")
	if err != nil {
		return err
	}
	return c.caller.JSON(ctx, call, out)
}
