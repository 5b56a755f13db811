package local

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that restarts finds an instance's gVisor container by the id it
// recorded, still running: what its commands left in /tmp (the
// container's own) is still there.
func TestARestartedServerFindsTheGVisorContainerStillRunning(t *testing.T) {
	c := newIsolatedClient(t, isolationGVisor)
	inst := c.create(t)
	assert.Equal(t, "", c.exec(t, inst, "echo kept > /tmp/mark").Output)
	g := c.iso.(gvisorIsolation)
	was, ok := g.recorded(inst.ID)
	require.True(t, ok)

	// A new process knows nothing of it but what the data folder holds.
	gvisorInstances.Delete(g.folder(inst.ID))
	opened, err := Kind{DataDir: c.dataDir, Isolation: c.config.isolation}.Open(provider.Settings{Config: &c.config})
	require.NoError(t, err)
	again := testClient{client: opened.(*client), dataDir: c.dataDir}
	_, err = again.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, "kept\n", again.exec(t, inst, "cat /tmp/mark").Output, "the same container")
	now, _ := g.recorded(inst.ID)
	assert.Equal(t, was.ID, now.ID)
}

// A networked container's router ends with the process that started it: a
// restarted server starts the container again, with a router of its own,
// rather than run commands offline.
func TestARestartedServerStartsANetworkedGVisorContainerAgain(t *testing.T) {
	far := nettest.NewInternet(t)
	address := far.Serve(t, "online")
	c := newIsolatedClient(t, isolationGVisor, func(cfg *Config) { cfg.Network = provider.AllowNetwork() })
	inst := c.create(t)
	assert.Equal(t, "online\n", c.exec(t, inst, nettest.Fetch(address)).Output)
	g := c.iso.(gvisorIsolation)
	was, _ := g.recorded(inst.ID)
	i := g.instance(inst.ID)
	i.mu.Lock()
	i.router.Close() // as the process that started it ending would
	i.mu.Unlock()

	gvisorInstances.Delete(g.folder(inst.ID))
	opened, err := Kind{DataDir: c.dataDir, Isolation: c.config.isolation}.Open(provider.Settings{Config: &c.config})
	require.NoError(t, err)
	again := testClient{client: opened.(*client), dataDir: c.dataDir}
	_, err = again.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, "online\n", again.exec(t, inst, nettest.Fetch(address)).Output, "online again")
	now, _ := g.recorded(inst.ID)
	assert.NotEqual(t, was.ID, now.ID, "in another container")
}
