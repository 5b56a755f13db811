package providertest

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RunLifecycle checks what keeping a thread's work relies on, for each of
// Pauser and Keeper the client is (a provider declaring PauseResume or
// SnapshotRestore must be it): a paused instance is running again after
// Reconnect with its files; kept files come back in an instance made from
// them after the original is destroyed.
func RunLifecycle(t *testing.T, client provider.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	create := func(t *testing.T, thread string) provider.Instance {
		inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: thread})
		require.NoError(t, err, "create")
		t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
		return inst
	}
	pauser, pauses := client.(provider.Pauser)
	keeper, keeps := client.(provider.Keeper)
	require.True(t, pauses || keeps, "the client is a Pauser or a Keeper")

	if pauses {
		t.Run("paused is resumed with its files", func(t *testing.T) {
			inst := create(t, "th-pause")
			run(ctx, t, client, inst, "echo paused > kept.txt")
			require.NoError(t, pauser.Pause(ctx, inst))
			require.NoError(t, pauser.Pause(ctx, inst), "pausing twice is fine")
			again, err := client.Reconnect(ctx, inst)
			require.NoError(t, err)
			assert.Equal(t, inst.ID, again.ID, "a resumed instance is the same one")
			assert.Equal(t, "paused\n", run(ctx, t, client, again, "cat kept.txt").Output)
		})
	}
	if keeps {
		t.Run("kept files outlive their instance", func(t *testing.T) {
			inst := create(t, "th-keep")
			run(ctx, t, client, inst, "mkdir -p deep && echo kept > deep/kept.txt")
			before := time.Now()
			kept, err := keeper.Keep(ctx, inst)
			require.NoError(t, err)
			require.NotEmpty(t, kept.ID)
			assert.False(t, kept.At.Before(before.Add(-time.Minute)), "kept at about now: %s", kept.At)
			require.NoError(t, client.Destroy(ctx, inst))

			restored, err := keeper.CreateFrom(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-keep"}, kept)
			require.NoError(t, err)
			t.Cleanup(func() { _ = client.Destroy(context.Background(), restored) })
			assert.Equal(t, "kept\n", run(ctx, t, client, restored, "cat deep/kept.txt").Output)
			assert.Equal(t, restored.WorkDir+"\n", run(ctx, t, client, restored, "pwd").Output)

			require.NoError(t, keeper.Forget(ctx, kept))
			require.NoError(t, keeper.Forget(ctx, kept), "forgetting twice is fine")
		})
	}
}
