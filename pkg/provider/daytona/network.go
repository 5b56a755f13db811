package daytona

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// networkSettings is the body of POST /sandbox/{id}/network-settings,
// Daytona's UpdateSandboxNetworkSettingsDto
// (apps/api/src/sandbox/dto/update-sandbox-network-settings.dto.ts): each
// member left out keeps what the sandbox has.
type networkSettings struct {
	NetworkBlockAll  *bool   `json:"networkBlockAll,omitempty"`
	NetworkAllowList *string `json:"networkAllowList,omitempty"`
}

// settings is the update that leaves the sandbox with exactly the config's
// network: updateNetworkSettings (apps/api/src/sandbox/services/
// sandbox.service.ts) clears the allow list when networkBlockAll is given
// alone, and sets networkBlockAll false when an allow list is given.
func (c *Config) settings() networkSettings {
	blockAll, allowList := c.network()
	switch {
	case blockAll != nil:
		return networkSettings{NetworkBlockAll: blockAll}
	case allowList != "":
		return networkSettings{NetworkAllowList: &allowList}
	}
	open := false
	return networkSettings{NetworkBlockAll: &open}
}

// UpdateNetwork gives a running sandbox the config's network: Daytona's
// updateNetworkSettings stores the settings and has the sandbox's runner
// apply them at once (sandbox.controller.ts, POST
// :sandboxIdOrName/network-settings, answering 200 with the sandbox). An
// organisation whose tier limits egress is refused as at create.
func (c *Client) UpdateNetwork(ctx context.Context, inst provider.Instance) error {
	const op = "update network"
	body, err := json.Marshal(c.cfg.settings())
	if err != nil {
		return failure(provider.ErrInvalidConfig, op, "%s", err)
	}
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(inst.ID)+"/network-settings", body))
	switch {
	case err != nil:
		return err
	case ans.Status == http.StatusOK || ans.Status == http.StatusCreated:
		return nil
	case networkRestricted(ans):
		return failure(provider.ErrInvalidConfig, op,
			"network: this Daytona organisation may not set a sandbox's network (its tier limits egress for all its sandboxes): %s", describe(ans))
	default:
		return c.controlPlaneError(op, ans)
	}
}

var _ provider.NetworkUpdater = (*Client)(nil)
