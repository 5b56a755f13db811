package local

import (
	"context"
	"os"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/require"
)

// The provider's suites run on each isolation.

func TestConformance(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		providertest.Run(t, newIsolatedClient(t, isolation).client)
	})
}

func TestConformanceStates(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		providertest.RunStates(t, Kind{}.Describe(), c.client, hostStates{c.client})
	})
}

// hostStates puts local instances in the states a host leaves them in.
type hostStates struct{ c *client }

// Pause is the host restarting: nothing of the instance runs (its gVisor
// container is gone), and its disk is no longer mounted; its folder and
// disk image stay.
func (h hostStates) Pause(t *testing.T, id string) {
	if g, ok := h.c.iso.(gvisorIsolation); ok {
		c, recorded := g.recorded(id)
		if recorded {
			require.NoError(t, c.Delete(context.Background()))
		}
		if i := g.instance(id); i.release != nil {
			i.release()
		}
		gvisorInstances.Delete(g.folder(id))
	}
	require.NoError(t, bubblewrap.UnmountUnder(h.c.instances))
}

// Exit is the instance's folder lost (removed by hand, a disk wiped).
func (h hostStates) Exit(t *testing.T, id string) {
	f := h.c.filesOf(id)
	if _, err := os.Lstat(f.image); err == nil {
		require.NoError(t, f.disk().Remove())
	}
	require.NoError(t, jailfs.RemoveAll(f.dir))
}

// RefuseCreates takes bubblewrap away, as a host upgrade that drops it
// does: nothing may run unjailed, so nothing can be made.
func (h hostStates) RefuseCreates(t *testing.T) providertest.Refusal {
	was := h.c.bwrap
	h.c.bwrap = "/nonexistent/bwrap"
	t.Cleanup(func() { h.c.bwrap = was })
	return providertest.Refusal{Kind: provider.ErrFailed, Words: "bubblewrap"}
}

func TestLifecycleConformance(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		providertest.RunLifecycle(t, newIsolatedClient(t, isolation).client)
	})
}

func TestTerminalConformance(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst, err := c.Create(context.Background(), provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-term"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
		providertest.RunTerminal(t, c.client, inst)
	})
}
