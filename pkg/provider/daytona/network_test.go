package daytona_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each network becomes the settings that leave the running sandbox with
// exactly it, whatever it had: blocked, an allow list, open again.
func TestUpdateNetworkLeavesExactlyTheConfiguredSettings(t *testing.T) {
	ctx := context.Background()
	fake, _, inst := started(t, daytonatest.Options{})
	for _, tt := range []struct {
		name    string
		network provider.Network
		want    daytonatest.Network
	}{
		{"allow list", provider.Network{Default: "deny", Allow: []string{"198.51.100.7"}}, daytonatest.Network{AllowList: "198.51.100.7/32"}},
		{"blocked", provider.DenyNetwork(), daytonatest.Network{BlockAll: true}},
		{"open", provider.AllowNetwork(), daytonatest.Network{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) { c.Network = tt.network })
			require.NoError(t, client.UpdateNetwork(ctx, inst))
			got, ok := fake.Settings(inst.ID)
			require.True(t, ok)
			assert.Equal(t, tt.want, got.Network)
		})
	}
}

// A tier that limits egress refuses the change as it refuses it at create;
// a sandbox that is gone is ErrGone.
func TestUpdateNetworkRefusals(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{LimitedNetworkEgress: true})
	err := client.UpdateNetwork(ctx, inst)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Network access is restricted")

	require.NoError(t, fake.Destroy(inst.ID))
	fake2, client2, inst2 := started(t, daytonatest.Options{})
	require.NoError(t, fake2.Destroy(inst2.ID))
	assert.ErrorIs(t, client2.UpdateNetwork(ctx, inst2), provider.ErrGone)
}
