package agentsandbox

import (
	"context"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// A sandbox's warm pool is kept by the cluster: a SandboxWarmPool of its
// template, whose controller holds that many Sandboxes ready
// (extensions/controllers/sandboxwarmpool_controller.go), and which a
// SandboxClaim takes one of (claim.go).

type warmPool struct {
	APIVersion string         `json:"apiVersion,omitempty"`
	Kind       string         `json:"kind,omitempty"`
	Metadata   objectMeta     `json:"metadata"`
	Spec       warmPoolSpec   `json:"spec"`
	Status     warmPoolStatus `json:"status,omitzero"`
}

type warmPoolSpec struct {
	Replicas       int            `json:"replicas"`
	TemplateRef    objectRef      `json:"sandboxTemplateRef"`
	UpdateStrategy updateStrategy `json:"updateStrategy"`
}

type objectRef struct {
	Name string `json:"name"`
}

type updateStrategy struct {
	Type string `json:"type"`
}

// recreate replaces the pool's unclaimed Sandboxes as soon as their
// template changes (RecreateSandboxWarmPoolUpdateStrategyType): an
// instance made from an older config is never handed out, as in the
// pools this server keeps.
const recreate = "Recreate"

type warmPoolStatus struct {
	Replicas      int `json:"replicas"`
	ReadyReplicas int `json:"readyReplicas"`
}

var _ provider.PoolKeeper = (*Client)(nil)

// poolName is the SandboxWarmPool kept for a sandbox.
func poolName(sandboxID string) string { return "auxilia-" + nameSafe(sandboxID) }

func (c *Client) warmPoolsPath(name string) string {
	return c.namespaced(extensionGroup, "sandboxwarmpools", name)
}

// KeepPool has the cluster hold size Sandboxes ready for the sandbox l
// names: its SandboxWarmPool made, or its replicas and template set,
// from the named template or the one kept for the image. Size 0 deletes
// the pool; its unclaimed Sandboxes go with it (they are its children).
func (c *Client) KeepPool(ctx context.Context, l provider.Labels, size int) (provider.PoolCount, error) {
	const op = "keep pool"
	name := poolName(l.Sandbox)
	if size == 0 {
		a, err := c.send(ctx, op, http.MethodDelete, c.warmPoolsPath(name)+"?propagationPolicy=Background", nil, "")
		if err != nil || a.OK() || a.Status == http.StatusNotFound {
			return provider.PoolCount{}, err
		}
		return provider.PoolCount{}, c.caller.Refusal(op, a)
	}
	template, err := c.templateFor(ctx, op, l)
	if err != nil {
		return provider.PoolCount{}, err
	}
	want := warmPoolSpec{Replicas: size, TemplateRef: objectRef{Name: template}, UpdateStrategy: updateStrategy{Type: recreate}}
	var have warmPool
	found, err := c.lookup(ctx, op, c.warmPoolsPath(name), &have)
	switch {
	case err != nil:
		return provider.PoolCount{}, err
	case !found:
		labels := map[string]string{labelManaged: "true", labelWorkspace: labelSafe(l.Workspace), labelSandbox: labelSafe(l.Sandbox)}
		have, err = c.createWarmPool(ctx, op, warmPool{APIVersion: extensionVersion, Kind: "SandboxWarmPool",
			Metadata: objectMeta{Name: name, Labels: labels}, Spec: want})
	case have.Spec != want:
		err = c.call(ctx, op, http.MethodPatch, c.warmPoolsPath(name), map[string]any{"spec": want}, &have)
	}
	if err != nil {
		return provider.PoolCount{}, err
	}
	ready := min(have.Status.ReadyReplicas, size)
	return provider.PoolCount{Ready: ready, Creating: size - ready}, nil
}

// createWarmPool posts the pool. A 404 here is the resource itself
// missing: the cluster's agent-sandbox runs without its extensions.
func (c *Client) createWarmPool(ctx context.Context, op string, want warmPool) (warmPool, error) {
	var made warmPool
	a, err := c.send(ctx, op, http.MethodPost, c.warmPoolsPath(""), want, "")
	switch {
	case err != nil:
		return made, err
	case a.Status == http.StatusNotFound:
		return made, failure(provider.ErrFailed, op, "the cluster has no SandboxWarmPool resource: "+
			"install agent-sandbox's extensions (SandboxWarmPool, SandboxClaim) to keep a warm pool")
	case !a.OK():
		return made, c.caller.Refusal(op, a)
	}
	return made, c.caller.Decode(op, a.Body, &made)
}

// templateFor is the SandboxTemplate a sandbox's Sandboxes are made
// from: the named one, or the one kept for its image, written first.
func (c *Client) templateFor(ctx context.Context, op string, l provider.Labels) (string, error) {
	if c.cfg.Template != "" {
		return c.cfg.Template, nil
	}
	_, err := c.keepImageTemplate(ctx, op, l.Sandbox)
	return c.cfg.templateName(l.Sandbox), err
}
