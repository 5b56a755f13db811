package cloudrun

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// workDir is where every gateway sandbox keeps its files.
const workDir = "/workspace"

// Probe makes one authenticated call, then asks /health whether the gateway can run sandboxes.
func (c *client) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if err := c.callJSON(ctx, call{op: "probe", method: http.MethodGet, path: "/sandboxes",
		query: url.Values{"limit": {"1"}}}, nil); err != nil {
		return err
	}
	var h health
	if err := c.callJSON(ctx, call{op: "probe", method: http.MethodGet, path: "/health", noAuth: true}, &h); err != nil {
		return err
	}
	if !h.CLIMounted {
		return provider.Errorf(provider.ErrFailed, providerName, "probe",
			"the gateway cannot run sandboxes: its launcher is not usable (%s)", orDefault(h.Detail, "no detail given"))
	}
	if !c.cfg.Network.Offline() && !h.AllowEgress {
		return provider.Errorf(provider.ErrInvalidConfig, providerName, "probe",
			"this sandbox's network settings let commands out, but the gateway's deployment does not allow egress (GATEWAY_ALLOW_EGRESS)")
	}
	return nil
}

// Create asks the gateway for a new sandbox; it can run commands at once.
func (c *client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	st := instanceState{Labels: labelMap(labels)}
	body, ct := jsonBody(c.spec(st))
	var sb sandbox
	if err := c.callJSON(ctx, call{op: "create", method: http.MethodPost, path: "/sandboxes", body: body, contentType: ct}, &sb); err != nil {
		return provider.Instance{}, err
	}
	provider.Created(ctx, sb.ID)
	return c.instance(sb, st), nil
}

// Reconnect keeps a live sandbox, or brings a gone one back from its
// snapshot under the same id when a bucket is set; else it is gone.
func (c *client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	st := stateOf(inst)
	sb, err := c.keepAlive(ctx, "reconnect", inst.ID)
	switch {
	case err == nil:
		return c.instance(sb, st), nil
	case !errors.Is(err, provider.ErrGone) || c.cfg.GCSBucket == "":
		return provider.Instance{}, err
	}
	body, ct := jsonBody(restoreRequest{Source: "snapshot", SandboxSpec: c.spec(st)})
	var res restoreResult
	err = c.callJSON(ctx, call{op: "reconnect", method: http.MethodPost, path: sandboxPath(inst.ID, "/restore"),
		body: body, contentType: ct}, &res)
	if hasReason(err, auxilia.CodeConflict, wire.SubjectSandbox) {
		// Re-created by a concurrent reconnect: it is live now.
		sb, err = c.keepAlive(ctx, "reconnect", inst.ID)
		res.Sandbox = sb
	}
	if err != nil {
		return provider.Instance{}, err
	}
	return c.instance(res.Sandbox, st), nil
}

// KeepAlive tells the gateway the sandbox is in use, so its idle reaper leaves it.
func (c *client) KeepAlive(ctx context.Context, inst provider.Instance) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	_, err := c.keepAlive(ctx, "keepalive", inst.ID)
	return err
}

func (c *client) keepAlive(ctx context.Context, op, id string) (sandbox, error) {
	var sb sandbox
	err := c.callJSON(ctx, call{op: op, method: http.MethodPost, path: sandboxPath(id, "/keepalive")}, &sb)
	return sb, err
}

// Persist saves /workspace to the bucket; without a bucket there is nothing to do.
func (c *client) Persist(ctx context.Context, inst provider.Instance) error {
	if c.cfg.GCSBucket == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	body, ct := jsonBody(c.location())
	return c.callJSON(ctx, call{op: "persist", method: http.MethodPost, path: sandboxPath(inst.ID, "/snapshot"),
		body: body, contentType: ct}, nil)
}

// Destroy deletes the sandbox and its snapshot: a destroyed thread does not come back.
func (c *client) Destroy(ctx context.Context, inst provider.Instance) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	err := c.callJSON(ctx, call{op: "destroy", method: http.MethodDelete, path: sandboxPath(inst.ID, "")}, nil)
	if err != nil && !errors.Is(err, provider.ErrGone) {
		return err
	}
	if c.cfg.GCSBucket == "" {
		return nil
	}
	loc := c.location()
	q := url.Values{"gcs_bucket": {loc.GCSBucket}, "snapshot_prefix": {loc.SnapshotPrefix}}
	return c.callJSON(ctx, call{op: "destroy", method: http.MethodDelete, path: sandboxPath(inst.ID, "/snapshot"), query: q}, nil)
}

func (c *client) spec(st instanceState) sandboxSpec {
	n := c.cfg.Network
	sp := sandboxSpec{Network: &network{Default: n.Default, Allow: n.Allow, Deny: n.Deny},
		Resources: resources{MemoryMB: c.cfg.Resources.MemoryMB, DiskMB: c.cfg.Resources.DiskMB}, Labels: st.Labels}
	if c.cfg.GCSBucket != "" {
		sp.GCSBucket, sp.SnapshotPrefix = c.cfg.GCSBucket, c.cfg.SnapshotPrefix
	}
	return sp
}

func (c *client) location() snapshotLocation {
	return snapshotLocation{GCSBucket: c.cfg.GCSBucket, SnapshotPrefix: c.cfg.SnapshotPrefix}
}

func (c *client) instance(sb sandbox, st instanceState) provider.Instance {
	return provider.Instance{ID: sb.ID, WorkDir: orDefault(sb.WorkDir, workDir), State: st.raw()}
}

// sandboxPath is a sandbox's route; ids come from the gateway, but escaping keeps a stored one from bending the path.
func sandboxPath(id, rest string) string { return "/sandboxes/" + url.PathEscape(id) + rest }

func labelMap(l provider.Labels) map[string]string {
	m := map[string]string{}
	for k, v := range map[string]string{"workspace": l.Workspace, "sandbox": l.Sandbox, "thread": l.Thread} {
		if v != "" {
			m[k] = v
		}
	}
	return m
}
