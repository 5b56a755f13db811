package local

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
	"github.com/auxilia/sandboxes/pkg/gvisor/gvisortest"
	"github.com/auxilia/sandboxes/pkg/provider"
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

// A running gVisor container's router takes edited rules at once: a sandbox
// whose network is withdrawn cuts off the container it already runs.
func TestAnEditedNetworkReachesARunningGVisorContainer(t *testing.T) {
	far := nettest.NewInternet(t)
	site := far.Serve(t, "out there")
	networked := newIsolatedClient(t, isolationGVisor, func(cfg *Config) { cfg.Network = provider.AllowNetwork() })
	inst := networked.create(t)
	assert.Equal(t, "out there\n", networked.exec(t, inst, nettest.Fetch(site)).Output)

	cfg := networked.config
	cfg.Network = provider.DenyNetwork()
	kind := Kind{DataDir: networked.dataDir}
	kind.Isolation.GVisor = gvisortest.Require(t)
	opened, err := kind.Open(provider.Settings{Config: &cfg})
	require.NoError(t, err)
	offline := testClient{client: opened.(*client), dataDir: networked.dataDir}
	require.NoError(t, offline.UpdateNetwork(context.Background(), inst))
	res := offline.exec(t, inst, nettest.Fetch(site))
	assert.NotEqual(t, 0, res.ExitCode, "cut off: %s", res.Output)

	// Back to allowed: the same router lets it out again, with no restart.
	require.NoError(t, networked.UpdateNetwork(context.Background(), inst))
	assert.Equal(t, "out there\n", networked.exec(t, inst, nettest.Fetch(site)).Output)
}
