package agentsandbox

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// A new instance of a sandbox whose cluster keeps a warm pool is a
// SandboxClaim against it: the claim's controller adopts one of the
// pool's ready Sandboxes, or makes one from the pool's template when
// none is ready (getOrCreateSandbox in
// extensions/controllers/sandboxclaim_controller.go), and becomes the
// Sandbox's owner.

type sandboxClaim struct {
	APIVersion string      `json:"apiVersion,omitempty"`
	Kind       string      `json:"kind,omitempty"`
	Metadata   objectMeta  `json:"metadata"`
	Spec       claimSpec   `json:"spec"`
	Status     claimStatus `json:"status,omitzero"`
}

type claimSpec struct {
	WarmPoolRef objectRef `json:"warmPoolRef"`
}

type claimStatus struct {
	Conditions []condition `json:"conditions"`
	Sandbox    struct {
		Name string `json:"name"`
	} `json:"sandbox"`
}

// claimRefusals are the reasons of a claim's Ready condition that no
// wait mends (computeReadyCondition): the template or pool is gone, or
// the claim was refused as written.
var claimRefusals = []string{"TemplateNotFound", "WarmPoolNotFound", "InvalidMetadata", "EnvVarsInjectionRejected"}

func (c *Client) claimsPath(name string) string {
	return c.namespaced(extensionGroup, "sandboxclaims", name)
}

// createFromPool takes a Sandbox of the sandbox's warm pool with a
// SandboxClaim, when the cluster keeps the pool; false when it keeps none
// (the pool job has not made it yet, or the workspace's quota leaves it
// no room), for a Sandbox of its own to be made instead. The claim has
// the name a Sandbox of this creation would have, so that a create asked
// twice makes one claim; the Sandbox taken is labelled as the creation's.
func (c *Client) createFromPool(ctx context.Context, op string, labels provider.Labels) (provider.Instance, bool, error) {
	pool := poolName(labels.Sandbox)
	if kept, err := c.lookup(ctx, op, c.warmPoolsPath(pool), nil); err != nil || !kept {
		return provider.Instance{}, err != nil, err
	}
	tags := c.sandboxLabels(labels)
	want := sandboxClaim{APIVersion: extensionVersion, Kind: "SandboxClaim",
		Metadata: objectMeta{Name: sandboxName(labels), Labels: tags}, Spec: claimSpec{WarmPoolRef: objectRef{Name: pool}}}
	if want.Metadata.Name == "" {
		want.Metadata.Name = "aux-" + nameSafe(randomID())
	}
	claimed, err := c.createClaim(ctx, op, want)
	if err != nil {
		return provider.Instance{}, true, err
	}
	provider.Created(ctx, claimed.Metadata.Name)
	inst, err := c.untilClaimed(ctx, op, claimed.Metadata.Name, tags)
	if err != nil {
		_ = c.Destroy(context.WithoutCancel(ctx), provider.Instance{ID: claimed.Metadata.Name,
			State: state{Claim: claimed.Metadata.Name}.raw()})
	}
	return inst, true, err
}

// createClaim posts the claim; one of its name already there with this
// creation's label is the one asked for (an answer that was lost).
func (c *Client) createClaim(ctx context.Context, op string, want sandboxClaim) (sandboxClaim, error) {
	var made sandboxClaim
	a, err := c.send(ctx, op, http.MethodPost, c.claimsPath(""), want, "")
	switch {
	case err != nil:
		return made, err
	case a.OK():
		return made, c.caller.Decode(op, a.Body, &made)
	case a.Status != http.StatusConflict:
		return made, c.caller.Refusal(op, a)
	}
	if err := c.call(ctx, op, http.MethodGet, c.claimsPath(want.Metadata.Name), nil, &made); err != nil {
		return made, err
	}
	if made.Metadata.Labels[labelInstance] != want.Metadata.Labels[labelInstance] {
		return made, c.caller.Refusal(op, a)
	}
	return made, nil
}

// untilClaimed waits for the claim to name its Sandbox, labels the
// Sandbox as the creation's, and waits for it to be Ready and serving.
func (c *Client) untilClaimed(ctx context.Context, op, claim string, tags map[string]string) (provider.Instance, error) {
	var name string
	err := readyPoll.Until(ctx, func(ctx context.Context) (string, bool, error) {
		var cl sandboxClaim
		if err := c.call(ctx, op, http.MethodGet, c.claimsPath(claim), nil, &cl); err != nil {
			return "", false, err
		}
		if name = cl.Status.Sandbox.Name; name != "" {
			return "claimed", true, nil
		}
		for _, cond := range cl.Status.Conditions {
			if cond.Type != conditionReady || cond.Status != "False" {
				continue
			}
			switch {
			case slices.Contains(claimRefusals, cond.Reason):
				e := failure(provider.ErrInvalidConfig, op, "the SandboxClaim was refused (%s: %s)", cond.Reason, cond.Message)
				e.Field = c.podSetting()
				return "", false, e
			case strings.Contains(cond.Message, "exceeded quota"):
				// The controller's create of the Sandbox met a ResourceQuota.
				return "", false, failure(provider.ErrQuota, op, "%s", cond.Message)
			}
		}
		return "waiting for a Sandbox of the warm pool", false, nil
	})
	if err != nil {
		return provider.Instance{}, stillWords(op, err)
	}
	var taken sandbox
	patch := map[string]any{"metadata": map[string]any{"labels": tags}}
	if err := c.call(ctx, op, http.MethodPatch, c.sandboxesPath(name), patch, &taken); err != nil {
		return provider.Instance{}, err
	}
	return c.untilReady(ctx, op, name, taken.Metadata.Generation)
}

// findClaimed finds the Sandbox a claim of this creation took, for a
// creator that died before labelling it.
func (c *Client) findClaimed(ctx context.Context, labels provider.Labels) (provider.Instance, bool, error) {
	const op = "find"
	var cl sandboxClaim
	found, err := c.lookup(ctx, op, c.claimsPath(sandboxName(labels)), &cl)
	if err != nil || !found || cl.Metadata.Labels[labelInstance] != labelSafe(labels.Instance) {
		return provider.Instance{}, false, err
	}
	if cl.Status.Sandbox.Name == "" {
		return provider.Instance{}, false, nil // a create asked again takes this claim up (createClaim)
	}
	sb, err := c.getSandbox(ctx, op, cl.Status.Sandbox.Name)
	if err != nil {
		return provider.Instance{}, false, err
	}
	return c.instance(sb), true, nil
}

// destroyClaims deletes the claims an instance was made or found by: the
// Sandbox they took goes with them (it is their child), and with them
// gone, nothing makes it again.
func (c *Client) destroyClaims(ctx context.Context, op string, claims []string) error {
	slices.Sort(claims)
	for _, name := range slices.Compact(claims) {
		if name == "" {
			continue
		}
		a, err := c.send(ctx, op, http.MethodDelete, c.claimsPath(name)+"?propagationPolicy=Background", nil, "")
		if err != nil {
			return err
		}
		if !a.OK() && a.Status != http.StatusNotFound {
			return c.caller.Refusal(op, a)
		}
	}
	return nil
}
