package e2b

import (
	"context"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// networkUpdate is the body of PUT /sandboxes/{id}/network,
// SandboxNetworkUpdateConfig (spec/openapi.yml): the lists replace the
// sandbox's (one left out is cleared); allow_internet_access changes only
// when given (orchestrator/update_network.go), so it is always given.
type networkUpdate struct {
	AllowOut      []string `json:"allowOut,omitempty"`
	DenyOut       []string `json:"denyOut,omitempty"`
	AllowInternet bool     `json:"allow_internet_access"`
}

// update is the body that leaves a sandbox with exactly the config's
// network, as egress maps it for a create.
func (c *Config) update() networkUpdate {
	allow, net := c.egress()
	u := networkUpdate{AllowInternet: allow == nil || *allow}
	if net != nil {
		u.AllowOut, u.DenyOut = net.AllowOut, net.DenyOut
	}
	return u
}

// UpdateNetwork gives a running sandbox the config's network: E2B applies
// it on the sandbox's node at once and answers 204
// (handlers/sandbox_network_update.go); a paused sandbox is not in its
// running store, so it is not found (404).
func (c *Client) UpdateNetwork(ctx context.Context, inst provider.Instance) error {
	return c.controlPlane(ctx, "update network", http.MethodPut, sandboxPath(inst.ID, "/network"), c.cfg.update(), nil)
}

var _ provider.NetworkUpdater = (*Client)(nil)
