package agentsandbox

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// state is what an instance's State holds: its pod, as sandboxd is reached.
type state struct {
	Pod string `json:"pod,omitempty"`
	IP  string `json:"ip,omitempty"`
	// Claim is the SandboxClaim that took the Sandbox from the warm pool.
	Claim string `json:"claim,omitempty"`
}

func readState(inst provider.Instance) state {
	var s state
	_ = json.Unmarshal(inst.State, &s)
	if s.Pod == "" {
		s.Pod = inst.ID
	}
	return s
}

func (s state) raw() json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func (c *Client) instance(sb sandbox) provider.Instance {
	st := state{Pod: sb.podName(), Claim: sb.claimName()}
	if len(sb.Status.PodIPs) > 0 {
		st.IP = sb.Status.PodIPs[0]
	}
	return provider.Instance{ID: sb.Metadata.Name, WorkDir: c.cfg.WorkDir, State: st.raw()}
}

// sandboxName is the Sandbox a create with this instance label makes: the
// same name each time, so that a create asked twice makes one Sandbox.
func sandboxName(l provider.Labels) string {
	if l.Instance == "" {
		return ""
	}
	return "aux-" + nameSafe(l.Instance)
}

// Create takes a Sandbox of the sandbox's warm pool, where the cluster
// keeps one (claim.go), else makes a Sandbox from the template's or the
// image's pod (POST …/sandboxes); it waits until the controller reports it Ready (its
// pod ready: sandboxd's health answers, for an image's pod) and until
// sandboxd answers. A pod that cannot start is said in the cluster's
// words, and its Sandbox deleted.
func (c *Client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	const op = "create"
	if c.cfg.Pool.Size > 0 && labels.Sandbox != "" {
		if inst, taken, err := c.createFromPool(ctx, op, labels); taken {
			return inst, err
		}
	}
	b, err := c.blueprintFor(ctx, op, labels)
	if err != nil {
		return provider.Instance{}, err
	}
	tags := c.sandboxLabels(labels)
	podTemplate, err := withPodLabels(op, b.PodTemplate, tags)
	if err != nil {
		return provider.Instance{}, err
	}
	no := false
	want := sandbox{APIVersion: sandboxVersion, Kind: "Sandbox",
		Metadata: objectMeta{Name: sandboxName(labels), Labels: tags, OwnerReferences: b.ownerReferences()},
		Spec: sandboxSpec{PodTemplate: podTemplate, VolumeClaimTemplates: b.VolumeClaimTemplates,
			Service: &no, OperatingMode: modeRunning}}
	if want.Metadata.Name == "" {
		want.Metadata.Name = "aux-" + nameSafe(randomID())
	}
	sb, err := c.createSandbox(ctx, op, want)
	if err != nil {
		return provider.Instance{}, err
	}
	provider.Created(ctx, sb.Metadata.Name)
	inst, err := c.untilReady(ctx, op, sb.Metadata.Name, sb.Metadata.Generation)
	if err != nil {
		_ = c.Destroy(context.WithoutCancel(ctx), provider.Instance{ID: sb.Metadata.Name})
		return provider.Instance{}, err
	}
	return inst, nil
}

// createSandbox posts the Sandbox. Its name is the creation's own, so a
// Sandbox of that name already there, or found after an answer that was
// lost, is the one this create asked for.
func (c *Client) createSandbox(ctx context.Context, op string, want sandbox) (sandbox, error) {
	var sb sandbox
	a, err := c.send(ctx, op, http.MethodPost, c.sandboxesPath(""), want, "")
	switch {
	case err == nil && a.OK():
		return sb, c.caller.Decode(op, a.Body, &sb)
	case err == nil && a.Status != http.StatusConflict && a.Status < http.StatusInternalServerError:
		return sb, c.caller.Refusal(op, a)
	case err == nil && a.Status >= http.StatusInternalServerError:
		err = c.caller.Refusal(op, a)
	}
	if ctx.Err() != nil {
		return sb, err
	}
	found, ferr := c.getSandbox(ctx, op, want.Metadata.Name)
	if ferr != nil || found.Metadata.Labels[labelInstance] != want.Metadata.Labels[labelInstance] {
		if err == nil { // a 409 for another's Sandbox
			return sb, c.caller.Refusal(op, a)
		}
		return sb, err
	}
	return found, nil
}

func (c *Client) getSandbox(ctx context.Context, op, name string) (sandbox, error) {
	var sb sandbox
	return sb, c.call(ctx, op, http.MethodGet, c.sandboxesPath(name), nil, &sb)
}

// Reconnect reads the Sandbox: one gone, being deleted, or whose pod has
// ended (Finished) is ErrGone; a suspended one is set Running again
// (operatingMode) and waited for, as is one not Ready yet.
func (c *Client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	const op = "reconnect"
	sb, err := c.getSandbox(ctx, op, inst.ID)
	switch {
	case err != nil:
		return provider.Instance{}, err
	case sb.Metadata.DeletionTimestamp != nil:
		return provider.Instance{}, failure(provider.ErrGone, op, "the Sandbox %s is being deleted", inst.ID)
	case sb.is(conditionFinished):
		cond, _ := sb.condition(conditionFinished)
		_ = c.Destroy(context.WithoutCancel(ctx), inst)
		return provider.Instance{}, failure(provider.ErrGone, op, "the Sandbox's pod has ended (%s: %s)", cond.Reason, cond.Message)
	case sb.Spec.OperatingMode == modeSuspended:
		c.pods.forget(inst.ID)
		if err := c.untilPodGone(ctx, op, sb); err != nil {
			return provider.Instance{}, err
		}
		resumed, err := c.setMode(ctx, op, inst.ID, modeRunning)
		if err != nil {
			return provider.Instance{}, err
		}
		sb = resumed
	case sb.readySince(sb.Metadata.Generation):
		fresh := c.instance(sb)
		if readState(fresh) != readState(inst) {
			c.pods.forget(inst.ID)
		}
		return fresh, nil
	}
	return c.untilReady(ctx, op, inst.ID, sb.Metadata.Generation)
}

// Pause suspends the Sandbox (operatingMode Suspended): the controller
// deletes its pod and keeps its volumes (computeSuspendedCondition in
// controllers/sandbox_controller.go). Files outside a volume are lost.
func (c *Client) Pause(ctx context.Context, inst provider.Instance) error {
	c.pods.forget(inst.ID)
	_, err := c.setMode(ctx, "pause", inst.ID, modeSuspended)
	return err
}

var _ provider.Pauser = (*Client)(nil)

// setMode sets the Sandbox's operatingMode and returns it as patched.
func (c *Client) setMode(ctx context.Context, op, name, mode string) (sandbox, error) {
	patch := map[string]any{"spec": map[string]string{"operatingMode": mode}}
	var sb sandbox
	return sb, c.call(ctx, op, http.MethodPatch, c.sandboxesPath(name), patch, &sb)
}

// Destroy deletes the Sandbox, its pod and claims going with it (they are
// its children), and the SandboxClaim it was taken by, first, so that
// the claim does not take another; one gone is not an error. An instance
// known by its id only (no State) is read for its claim; an id that names no
// Sandbox may name a claim that has not been given one yet (the id a
// pooled Create reports first).
func (c *Client) Destroy(ctx context.Context, inst provider.Instance) error {
	const op = "destroy"
	c.pods.forget(inst.ID)
	var claims []string
	if claim := readState(inst).Claim; claim != "" || len(inst.State) > 0 {
		claims = append(claims, claim)
	} else {
		var sb sandbox
		found, err := c.lookup(ctx, op, c.sandboxesPath(inst.ID), &sb)
		switch {
		case err != nil:
			return err
		case !found:
			claims = append(claims, inst.ID)
		default:
			claims = append(claims, sb.claimName())
		}
	}
	if err := c.destroyClaims(ctx, op, claims); err != nil {
		return err
	}
	a, err := c.send(ctx, op, http.MethodDelete, c.sandboxesPath(inst.ID)+"?propagationPolicy=Background", nil, "")
	if err != nil || a.OK() || a.Status == http.StatusNotFound {
		return err
	}
	return c.caller.Refusal(op, a)
}

var (
	_ provider.Relabeler = (*Client)(nil)
	_ provider.Finder    = (*Client)(nil)
)

// Relabel sets the Sandbox's labels anew (a merge patch of its metadata):
// a warm pool's instance, claimed, is labelled as its thread's. The
// instance label, our id for it, stays.
func (c *Client) Relabel(ctx context.Context, inst provider.Instance, labels provider.Labels) error {
	tags := map[string]any{}
	for k, v := range c.sandboxLabels(labels) {
		if k != labelInstance {
			tags[k] = v
		}
	}
	for _, k := range []string{labelWorkspace, labelSandbox, labelThread} {
		if _, set := tags[k]; !set {
			tags[k] = nil // a merge patch's null removes the label
		}
	}
	patch := map[string]any{"metadata": map[string]any{"labels": tags}}
	return c.call(ctx, "relabel", http.MethodPatch, c.sandboxesPath(inst.ID), patch, nil)
}

// FindCreated finds the Sandbox a Create with these labels made, by our
// instance label (GET …/sandboxes?labelSelector=); a failed listing is an
// error, never "not found".
func (c *Client) FindCreated(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	if labels.Instance == "" {
		return provider.Instance{}, false, nil
	}
	want := labelSafe(labels.Instance)
	search := provider.Search[sandbox]{
		List: func(ctx context.Context) ([]sandbox, error) {
			selector := labelManaged + "=true," + labelInstance + "=" + want
			var list sandboxList
			err := c.call(ctx, "find", http.MethodGet, c.sandboxesPath("")+"?labelSelector="+url.QueryEscape(selector), nil, &list)
			return list.Items, err
		},
		Match: func(sb sandbox) bool {
			return sb.Metadata.Name != "" && sb.Metadata.Labels[labelInstance] == want && sb.Metadata.Labels[labelManaged] == "true"
		},
	}
	sb, found, err := search.Find(ctx)
	switch {
	case err != nil:
		return provider.Instance{}, false, err
	case !found:
		return c.findClaimed(ctx, labels)
	}
	return c.instance(sb), true, nil
}
