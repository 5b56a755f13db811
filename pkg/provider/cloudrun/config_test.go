package cloudrun

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// atGateway is a sandbox as the gateway shows it.
func atGateway(t *testing.T, g *gatewaytest.Gateway, id string) map[string]any {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, g.URL+"/sandboxes/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+gatewaytest.Secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var sb map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&sb))
	return sb
}

func TestTheCreateCarriesTheSandboxsRulesAndResources(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t), "GATEWAY_ALLOW_EGRESS=true")
	client := open(t, g.URL, gatewaytest.Secret, func(c *Config) {
		c.Network = provider.Network{Default: "deny", Allow: []string{"pypi.org", "198.51.100.0/24"}, Deny: []string{"198.51.100.7"}}
		c.Resources = provider.InstanceResources{MemoryMB: 512, DiskMB: 64}
	})
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	sb := atGateway(t, g, inst.ID)
	assert.Equal(t, map[string]any{"default": "deny", "allow": []any{"pypi.org", "198.51.100.0/24"}, "deny": []any{"198.51.100.7"}}, sb["network"])
	assert.Equal(t, map[string]any{"memory_mb": 512.0, "disk_mb": 64.0}, sb["resources"])
	assert.Equal(t, true, sb["allow_egress"])
}

func TestAnOlderConfigsEgressSwitchReadsTheSame(t *testing.T) {
	for raw, want := range map[string]provider.Network{
		`{"allow_egress":true}`:                                  provider.AllowNetwork(),
		`{"allow_egress":false}`:                                 provider.DenyNetwork(),
		`{"allow_egress":true,"network":{"allow":["pypi.org"]}}`: {Default: "deny", Allow: []string{"pypi.org"}, Deny: []string{}},
	} {
		cfg, errs := provider.DecodeConfig(Kind{}, json.RawMessage(raw))
		require.Empty(t, errs, raw)
		assert.Equal(t, want, cfg.(*Config).Network, raw)
	}
}

func TestWhatTheGatewayCannotEnforceIsRefusedAtSave(t *testing.T) {
	cfg, errs := provider.DecodeConfig(Kind{}, json.RawMessage(`{"network":{"default":"deny","allow":["*.pythonhosted.org","10.0.0.0/8"]},
		"resources":{"cpu":1}}`))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(Kind{}, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	assert.Equal(t, map[string]string{
		"network.allow.0": "Cloud Run sandboxes cannot filter by wildcard domain; list each domain",
		"network.allow.1": "reaches into private, loopback or link-local addresses, which Cloud Run sandboxes never reach",
		"resources.cpu":   "must be 0: Cloud Run sandboxes cannot set it (Cloud Run sets CPU for the whole gateway service)",
	}, got)
}
