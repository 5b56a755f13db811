package e2b_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
)

// Each network becomes the update that leaves the running sandbox with
// exactly it, internet access included; a paused sandbox is not found.
func TestUpdateNetworkLeavesExactlyTheConfiguredRules(t *testing.T) {
	ctx := context.Background()
	fake, _, inst := started(t)
	yes, no := true, false
	for _, tt := range []struct {
		name    string
		network provider.Network
		want    e2btest.Network
	}{
		{"blocked", provider.DenyNetwork(), e2btest.Network{AllowInternet: &no}},
		{"allow list", provider.Network{Default: "deny", Allow: []string{"pypi.org", "198.51.100.7"}},
			e2btest.Network{AllowOut: []string{"pypi.org", "198.51.100.7"}, DenyOut: []string{"0.0.0.0/0"}, AllowInternet: &yes}},
		{"open", provider.AllowNetwork(), e2btest.Network{AllowInternet: &yes}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := openClient(t, fake, e2btest.DefaultKey, func(c *e2b.Config) { c.Network = tt.network })
			require.NoError(t, client.UpdateNetwork(ctx, inst))
			got, ok := fake.Network(inst.ID)
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}

	require.NoError(t, fake.Expire(inst.ID))
	require.Equal(t, "paused", fake.State(inst.ID))
	client := openClient(t, fake, e2btest.DefaultKey)
	assert.ErrorIs(t, client.UpdateNetwork(ctx, inst), provider.ErrGone)
}

// A sandbox E2B paused by itself resumes with the rules it was paused
// with: the connect that resumes it gives it the config's; when E2B
// refuses them, it is paused again for the next connect to try.
func TestAResumedSandboxTakesTheConfiguredRules(t *testing.T) {
	ctx := context.Background()
	fake, _, inst := started(t)
	require.NoError(t, fake.Expire(inst.ID)) // autoPause
	require.Equal(t, "paused", fake.State(inst.ID))

	denied := openClient(t, fake, e2btest.DefaultKey, func(c *e2b.Config) { c.Network = provider.DenyNetwork() })
	_, err := denied.Reconnect(ctx, inst)
	require.NoError(t, err)
	got, _ := fake.Network(inst.ID)
	no := false
	assert.Equal(t, e2btest.Network{AllowInternet: &no}, got)

	require.NoError(t, fake.Expire(inst.ID))
	bad := openClient(t, fake, e2btest.DefaultKey, func(c *e2b.Config) {
		c.Network = provider.Network{Default: "allow", Allow: []string{}, Deny: []string{"not-an-address"}}
	})
	_, err = bad.Reconnect(ctx, inst)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Equal(t, "paused", fake.State(inst.ID), "paused again")
}
