package local

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A running instance takes an edited network with its next command: the
// client of the edited sandbox jails each command by the new rules.
func TestAnEditedNetworkReachesTheNextCommand(t *testing.T) {
	if err := bubblewrap.Available(t.Context(), "", true); err != nil {
		t.Skipf("no network for jails here: %v", err)
	}
	offline := newClient(t)
	inst := offline.create(t)
	assert.Equal(t, "lo\n", offline.exec(t, inst, "ip -br link | cut -d' ' -f1").Output)

	cfg := offline.config
	cfg.Network = provider.AllowNetwork()
	opened, err := Kind{DataDir: offline.dataDir}.Open(provider.Settings{Config: &cfg})
	require.NoError(t, err)
	edited := testClient{client: opened.(*client), dataDir: offline.dataDir}
	require.NoError(t, edited.UpdateNetwork(context.Background(), inst))
	assert.Equal(t, "lo\ntap0\n", edited.exec(t, inst, "ip -br link | cut -d' ' -f1").Output, "a way out now")

	require.NoError(t, offline.Destroy(context.Background(), inst))
	assert.ErrorIs(t, edited.UpdateNetwork(context.Background(), inst), provider.ErrGone)
}
