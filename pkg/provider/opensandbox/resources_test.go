package opensandbox_test

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sandbox gets the CPU, memory and GPUs its settings name; by default
// the SDKs' one CPU and 2 GiB, and no GPU.
func TestResourcesGoToTheCreate(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	sb, ok := fake.Sandbox(inst.ID)
	require.True(t, ok)
	assert.Equal(t, map[string]string{"cpu": "1", "memory": "2Gi"}, sb.Request.ResourceLimits)

	fake, client = setup(t, opensandboxtest.Options{}, func(c *opensandbox.Config) {
		c.Resources = provider.InstanceResources{CPU: 0.5, MemoryMB: 4096}
		c.GPU = 2
	})
	inst = create(t, client)
	sb, ok = fake.Sandbox(inst.ID)
	require.True(t, ok)
	assert.Equal(t, map[string]string{"cpu": "500m", "memory": "4Gi", "gpu": "2"}, sb.Request.ResourceLimits)
}

// Every bad resource is named, in words that say what is accepted.
func TestResourcesAreValidated(t *testing.T) {
	kind := opensandbox.Kind{}
	cfg, errs := provider.DecodeConfig(kind, []byte(`{"resources":{"cpu":0.0001,"memory_mb":32,"disk_mb":1024},"gpu":-1}`))
	require.Empty(t, errs)
	assert.ElementsMatch(t, []string{"resources.cpu", "resources.memory_mb", "resources.disk_mb", "gpu"}, fields(provider.ValidateConfig(kind, cfg, provider.Policy{})))
	cfg, _ = provider.DecodeConfig(kind, []byte(`{"resources":{"cpu":0.25,"memory_mb":64},"gpu":1}`))
	assert.Empty(t, provider.ValidateConfig(kind, cfg, provider.Policy{}))
}

// A config stored with Kubernetes quantities reads as the same resources.
func TestResourcesOfAnOlderVersionReadTheSame(t *testing.T) {
	for raw, want := range map[string]provider.InstanceResources{
		`{"cpu":"500m","memory":"4Gi"}`:   {CPU: 0.5, MemoryMB: 4096},
		`{"cpu":"2","memory":"512Mi"}`:    {CPU: 2, MemoryMB: 512},
		`{"cpu":"0.5","memory":"4G"}`:     {CPU: 0.5, MemoryMB: 3815},
		`{"cpu":"1","memory":"67108864"}`: {CPU: 1, MemoryMB: 64},
		`{"cpu":null,"memory":null}`:      {CPU: 1, MemoryMB: 2048},
	} {
		cfg, errs := provider.DecodeConfig(opensandbox.Kind{}, []byte(raw))
		require.Empty(t, errs, raw)
		assert.Equal(t, want, cfg.(*opensandbox.Config).Resources, raw)
	}
}

// The egress rules go to the create as the spec's networkPolicy, which the
// fake checks; a sandbox that may connect anywhere sends none.
func TestEgressRulesGoToTheCreate(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	sb, _ := fake.Sandbox(create(t, client).ID)
	assert.Empty(t, sb.Request.NetworkPolicy, "allowed everywhere, as before")

	fake, client = setup(t, opensandboxtest.Options{}, func(c *opensandbox.Config) {
		c.Network = provider.Network{Default: "deny", Allow: []string{"pypi.org", "*.PythonHosted.org"}, Deny: []string{"evil.pypi.org"}}
	})
	sb, _ = fake.Sandbox(create(t, client).ID)
	var policy opensandboxtest.NetworkPolicy
	require.NoError(t, json.Unmarshal(sb.Request.NetworkPolicy, &policy))
	assert.Equal(t, opensandboxtest.NetworkPolicy{DefaultAction: "deny", Egress: []opensandboxtest.NetworkRule{
		{Action: "deny", Target: "evil.pypi.org"}, {Action: "allow", Target: "pypi.org"}, {Action: "allow", Target: "*.pythonhosted.org"},
	}}, policy, "deny first: the sidecar takes a domain's first matching rule")

	_, client = setup(t, opensandboxtest.Options{NoEgressSidecar: true}, func(c *opensandbox.Config) { c.Network = provider.DenyNetwork() })
	_, err := client.Create(t.Context(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "egress.image must be configured when networkPolicy is provided.", "the controller's own words")
}

func TestEgressRulesTheSidecarCannotKeepAreRefused(t *testing.T) {
	kind := opensandbox.Kind{}
	cfg, errs := provider.DecodeConfig(kind, []byte(`{"network":{"default":"deny","allow":["pypi.org","198.51.100.0/24"]}}`))
	require.Empty(t, errs)
	assert.Equal(t, []provider.FieldError{{Field: "network.allow.1", Message: "OpenSandbox sandboxes cannot filter by address; give a domain"}},
		provider.ValidateConfig(kind, cfg, provider.Policy{}))
}

func fields(errs []provider.FieldError) []string {
	out := []string{}
	for _, fe := range errs {
		out = append(out, fe.Field)
	}
	return out
}
