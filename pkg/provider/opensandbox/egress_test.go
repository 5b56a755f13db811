package opensandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

// The sidecar takes the whole new policy, directly with the token its
// endpoint names, or through the server's proxy with the token the direct
// endpoint names (the proxied one names none); open again, it allows all.
func TestUpdateNetworkReplacesTheSidecarsPolicy(t *testing.T) {
	for name, via := range map[string]func(*opensandbox.Config){"direct": direct, "proxied": proxied} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			filtered := func(c *opensandbox.Config) {
				via(c)
				c.Network = provider.Network{Default: "deny", Allow: []string{"pypi.org"}, Deny: []string{}}
			}
			fake, client := setup(t, opensandboxtest.Options{}, filtered)
			inst := create(t, client)

			edited := openClient(t, testKind, fake.URL, testKey, func(c *opensandbox.Config) {
				via(c)
				c.Network = provider.Network{Default: "allow", Allow: []string{}, Deny: []string{"*.example.com"}}
			})
			require.NoError(t, edited.(provider.NetworkUpdater).UpdateNetwork(ctx, inst))
			pol, ok := fake.Policy(inst.ID)
			require.True(t, ok)
			assert.Equal(t, opensandboxtest.NetworkPolicy{DefaultAction: "allow",
				Egress: []opensandboxtest.NetworkRule{{Action: "deny", Target: "*.example.com"}}}, pol)

			open := openClient(t, testKind, fake.URL, testKey, func(c *opensandbox.Config) { via(c); c.Network = provider.AllowNetwork() })
			require.NoError(t, open.(provider.NetworkUpdater).UpdateNetwork(ctx, inst))
			pol, _ = fake.Policy(inst.ID)
			assert.Equal(t, opensandboxtest.NetworkPolicy{DefaultAction: "allow", Egress: []opensandboxtest.NetworkRule{}}, pol)
		})
	}
}

// An instance created with an open network has no sidecar: it cannot take
// rules while it runs, which is said without a call to the server.
func TestUpdateNetworkWithoutASidecarIsUnsupported(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{}, direct)
	inst := create(t, client)
	before := fake.TotalCalls()
	edited := openClient(t, testKind, fake.URL, testKey, func(c *opensandbox.Config) {
		direct(c)
		c.Network = provider.DenyNetwork()
	})
	err := edited.(provider.NetworkUpdater).UpdateNetwork(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "no egress sidecar")
	assert.Equal(t, before, fake.TotalCalls())
	_, ok := fake.Policy(inst.ID)
	assert.False(t, ok)
}
