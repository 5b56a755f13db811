package provider_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnObjectOfTheCommonBlockIsDecodedKeyByKey(t *testing.T) {
	k := echo{name: "echo"}
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(`{"network":{"allow":["pypi.org"],"colour":"red","deny":"x"},"resources":{"cpu":"two","memory_mb":512}}`))
	assert.ElementsMatch(t, []provider.FieldError{
		{Field: "network.colour", Message: "is not a setting of Echo sandboxes"},
		{Field: "network.deny", Message: "must be a list of strings"},
		{Field: "resources.cpu", Message: "must be a number"},
	}, errs)
	c := cfg.(*echoConfig)
	assert.Equal(t, provider.Network{Default: "allow", Allow: []string{"pypi.org"}, Deny: []string{}}, c.Network, "what is unset keeps its default")
	assert.Equal(t, 512, c.Resources.MemoryMB)

	_, errs = provider.DecodeConfig(k, json.RawMessage(`{"network":"open"}`))
	assert.Equal(t, []provider.FieldError{{Field: "network", Message: "must be an object"}}, errs)
}

func TestTheNetworkSwitchOfOlderConfigsStillReads(t *testing.T) {
	k := echo{name: "echo"}
	for raw, want := range map[string]provider.Network{
		`{"network":true}`:  provider.AllowNetwork(),
		`{"network":false}`: provider.DenyNetwork(),
	} {
		cfg, errs := provider.DecodeConfig(k, json.RawMessage(raw))
		require.Empty(t, errs, raw)
		assert.Equal(t, want, cfg.(*echoConfig).Network, raw)
	}
}

func TestMoveKeyBringsAnOlderKeyIntoItsObject(t *testing.T) {
	values := map[string]json.RawMessage{"memory_mb": json.RawMessage(`512`), "disk_mb": json.RawMessage(`9`),
		"resources": json.RawMessage(`{"disk_mb":2048}`)}
	provider.MoveKey(values, "memory_mb", "resources", "memory_mb")
	provider.MoveKey(values, "disk_mb", "resources", "disk_mb")
	provider.MoveKey(values, "cpu", "resources", "cpu")
	assert.Equal(t, map[string]json.RawMessage{"resources": json.RawMessage(`{"disk_mb":2048,"memory_mb":512}`)}, values,
		"the key where it lives now wins over the older one")

	values = map[string]json.RawMessage{"memory_mb": json.RawMessage(`512`), "resources": json.RawMessage(`null`)}
	provider.MoveKey(values, "memory_mb", "resources", "memory_mb")
	assert.Equal(t, map[string]json.RawMessage{"resources": json.RawMessage(`{"memory_mb":512}`)}, values, "a null object is made anew")
}

// fieldErrors validates raw as a config of k, by field.
func fieldErrors(t *testing.T, k provider.Kind, raw string) map[string]string {
	t.Helper()
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(raw))
	require.Empty(t, errs)
	got := map[string]string{}
	for _, fe := range provider.ValidateConfig(k, cfg, provider.Policy{}) {
		got[fe.Field] = fe.Message
	}
	return got
}

func TestARuleTheProviderCannotEnforceIsRefusedOnItsField(t *testing.T) {
	none := echo{name: "echo"} // neither NetworkSwitch nor EgressRules
	assert.Equal(t, map[string]string{
		"network.default": "must be allow: Echo sandboxes cannot change it",
		"network.allow":   "must be empty: Echo sandboxes cannot filter connections by rules",
	}, fieldErrors(t, none, `{"network":{"default":"deny","allow":["pypi.org"]}}`))

	cidrsOnly := echo{name: "echo", caps: provider.NetworkSwitch | provider.EgressRules,
		rules: provider.CommonRules{Egress: provider.EgressLimits{Addresses: true, MaxAddresses: 2}}}
	assert.Equal(t, map[string]string{
		"network.allow.1": "Echo sandboxes cannot filter by domain; give an IP address or network",
		"network.allow.3": "Echo sandboxes cannot filter IPv6 addresses; give an IPv4 address or network",
		"network.deny":    "must be empty: Echo sandboxes cannot deny chosen hosts (set the default to deny and list what is allowed)",
		"network":         "may name at most 2 addresses or networks on Echo sandboxes, not 3",
		"network.allow.4": "must be a domain (example.com, *.example.com), an IP address (203.0.113.7) or a network in CIDR form (198.51.100.0/24)",
		"network.default": "must be one of: allow, deny",
	}, fieldErrors(t, cidrsOnly, `{"network":{"default":"block","allow":["198.51.100.0/24","pypi.org","203.0.113.7","2001:db8::/32","nope"],"deny":["203.0.113.9"]}}`))

	domainsOnly := echo{name: "echo", caps: provider.EgressRules,
		rules: provider.CommonRules{Egress: provider.EgressLimits{Domains: true, Deny: true}}}
	assert.Equal(t, map[string]string{
		"network.allow.1": "Echo sandboxes cannot filter by wildcard domain; list each domain",
		"network.deny.0":  "Echo sandboxes cannot filter by address; give a domain",
	}, fieldErrors(t, domainsOnly, `{"network":{"allow":["pypi.org","*.pythonhosted.org"],"deny":["203.0.113.9"]}}`))
}

func TestAResourceTheProviderCannotSetIsRefusedOnItsField(t *testing.T) {
	k := echo{name: "echo", caps: provider.Resources, rules: provider.CommonRules{Resources: provider.ResourceLimits{
		CPU: provider.Range{Min: 1, Max: 4, Step: 1}, MemoryMB: provider.Range{Min: 64, Max: 4096}}}}
	assert.Empty(t, fieldErrors(t, k, `{"resources":{"cpu":2,"memory_mb":64}}`))
	assert.Equal(t, map[string]string{
		"resources.cpu":       "must be a multiple of 1 on Echo sandboxes",
		"resources.memory_mb": "must be 0 or from 64 to 4096 on Echo sandboxes",
		"resources.disk_mb":   "must be 0: Echo sandboxes cannot set it",
	}, fieldErrors(t, k, `{"resources":{"cpu":1.5,"memory_mb":8192,"disk_mb":10}}`))
	assert.Equal(t, map[string]string{"resources.cpu": "must be at least 0"}, fieldErrors(t, k, `{"resources":{"cpu":-1}}`))

	schema := provider.Schema(k)["properties"].(map[string]any)["resources"].(map[string]any)["properties"].(map[string]any)
	assert.Equal(t, 4.0, schema["cpu"].(map[string]any)["maximum"])
	assert.Equal(t, 1.0, schema["cpu"].(map[string]any)["multipleOf"])
	assert.Equal(t, "number", schema["cpu"].(map[string]any)["type"])
	assert.Equal(t, "Disk each instance may fill; 0 for the provider's default (not available here).", schema["disk_mb"].(map[string]any)["description"])
}

func TestAFieldAboveItsCeilingIsRefusedNamingTheOperatorsVariable(t *testing.T) {
	k := echo{name: "echo", caps: provider.Resources,
		rules: provider.CommonRules{Resources: provider.ResourceLimits{MemoryMB: provider.Range{Min: 64, Max: 65536}}},
		ceilings: []provider.Ceiling{
			{Field: "resources.memory_mb", Max: 11904, Unit: "MiB", Env: "ECHO_MAX_MEMORY_MB"},
			{Field: "timeout", Max: 600, Env: "ECHO_MAX_TIMEOUT"},
		}}
	assert.Empty(t, fieldErrors(t, k, `{"resources":{"memory_mb":11904},"timeout":600}`), "at the ceiling is within it")
	for _, memory := range []int{11905, 65536, 100000} {
		assert.Equal(t, map[string]string{
			"resources.memory_mb": "must be at most 11,904 MiB on this server (ECHO_MAX_MEMORY_MB)",
			"timeout":             "must be at most 600 on this server (ECHO_MAX_TIMEOUT)",
		}, fieldErrors(t, k, fmt.Sprintf(`{"resources":{"memory_mb":%d},"timeout":86400}`, memory)),
			"the operator's bound is named, whatever else the provider's own rules say")
	}
	assert.Equal(t, map[string]string{"resources.memory_mb": "must be 0 or from 64 to 65536 on Echo sandboxes"},
		fieldErrors(t, k, `{"resources":{"memory_mb":10},"timeout":60}`), "below the range, the provider's own rule")

	props := provider.Schema(k)["properties"].(map[string]any)
	assert.Equal(t, 11904.0, props["resources"].(map[string]any)["properties"].(map[string]any)["memory_mb"].(map[string]any)["maximum"])
	assert.Equal(t, 600.0, props["timeout"].(map[string]any)["maximum"], "a form knows the ceiling before saving")

	cfg, _ := provider.DecodeConfig(k, json.RawMessage(`{"timeout":601}`))
	assert.Equal(t, []provider.FieldError{{Field: "timeout", Message: "must be at most 600 on this server (ECHO_MAX_TIMEOUT)"}},
		provider.CheckCeilings(k.ceilings, cfg), "a config saved before the ceiling was lowered is told apart too")
}

func TestNumbersAreGroupedAsPeopleReadThem(t *testing.T) {
	for f, want := range map[float64]string{0: "0", 0.25: "0.25", 64: "64", 1024: "1,024", 11904: "11,904",
		1 << 20: "1,048,576", 1234567.5: "1,234,567.5", -4096: "-4,096"} {
		assert.Equal(t, want, provider.Grouped(f))
	}
}
