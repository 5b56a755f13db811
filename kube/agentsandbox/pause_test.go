package agentsandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// A paused instance resumed while its pod is still being deleted (Ready,
// serving out its grace period) waits for that pod to go: taken for the
// resumed one, it would be reached at an address about to go.
func TestKubernetesResumeWaitsForThePausedPodToGo(t *testing.T) {
	client, c, ns := kubeClient(t, providerRules)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-" + ns, Thread: "th-1", Instance: "paused-" + ns})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	echo(t, client, inst, "before")

	end := c.LingerDeletedPods(t, ns)
	require.NoError(t, client.(provider.Pauser).Pause(ctx, inst))
	type reconnected struct {
		inst provider.Instance
		err  error
	}
	done := make(chan reconnected, 1)
	go func() {
		resumed, err := client.Reconnect(ctx, inst)
		done <- reconnected{resumed, err}
	}()
	select {
	case got := <-done:
		t.Fatalf("resumed while the paused pod was still being deleted: %s at %s (%v)", got.inst.ID, got.inst.State, got.err)
	case <-time.After(3 * time.Second):
	}
	end()
	got := <-done
	require.NoError(t, got.err)
	echo(t, client, got.inst, "resumed")
}
