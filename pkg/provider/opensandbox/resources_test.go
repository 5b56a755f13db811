package opensandbox_test

import (
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
		c.CPU, c.Memory, c.GPU = "500m", "4Gi", 2
	})
	inst = create(t, client)
	sb, ok = fake.Sandbox(inst.ID)
	require.True(t, ok)
	assert.Equal(t, map[string]string{"cpu": "500m", "memory": "4Gi", "gpu": "2"}, sb.Request.ResourceLimits)
}

// Every bad resource is named, in words that say what is accepted.
func TestResourcesAreValidated(t *testing.T) {
	kind := opensandbox.Kind{}
	cfg, errs := provider.DecodeConfig(kind, []byte(`{"cpu":"0","memory":"2GB","gpu":-1}`))
	require.Empty(t, errs)
	assert.ElementsMatch(t, []string{"cpu", "memory", "gpu"}, fields(provider.ValidateConfig(kind, cfg, provider.Policy{})))

	for _, bad := range []string{"", "two", "-1", "1.5m", "0m", "1e3"} {
		cfg, _ := provider.DecodeConfig(kind, []byte(`{"cpu":"`+bad+`"}`))
		assert.Equal(t, []string{"cpu"}, fields(provider.ValidateConfig(kind, cfg, provider.Policy{})), "cpu %q", bad)
	}
	for _, bad := range []string{"", "2gb", "2 Gi", "1Mi", "0", "1Ei", "99999999999999999999Ti"} {
		cfg, _ := provider.DecodeConfig(kind, []byte(`{"memory":"`+bad+`"}`))
		assert.Equal(t, []string{"memory"}, fields(provider.ValidateConfig(kind, cfg, provider.Policy{})), "memory %q", bad)
	}
	for _, good := range []string{`{"cpu":"2","memory":"512Mi"}`, `{"cpu":"0.5","memory":"4G"}`, `{"cpu":"250m","memory":"67108864","gpu":1}`} {
		cfg, _ := provider.DecodeConfig(kind, []byte(good))
		assert.Empty(t, provider.ValidateConfig(kind, cfg, provider.Policy{}), good)
	}
}

func fields(errs []provider.FieldError) []string {
	out := []string{}
	for _, fe := range errs {
		out = append(out, fe.Field)
	}
	return out
}
