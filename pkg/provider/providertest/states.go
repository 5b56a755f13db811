package providertest

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// States puts a provider's instances, through its fake, in the states the
// real provider leaves them in by itself.
type States interface {
	// Pause stops the instance with its files, as the provider's own pause
	// or idle stop does.
	Pause(t *testing.T, id string)
	// Exit ends the instance's machine for good while the provider keeps
	// it, as a host or runtime restart does.
	Exit(t *testing.T, id string)
}

// RunStates checks what a run relies on when an instance has left its
// running state by itself: a paused one is running again after Reconnect,
// with its files; one that has exited is ErrGone, so that the run service
// replaces it. A provider opts in by calling it with its fake's States.
func RunStates(t *testing.T, client provider.Client, states States) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	create := func(t *testing.T) provider.Instance {
		inst, err := client.Create(ctx, provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1"})
		require.NoError(t, err, "create")
		t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
		return inst
	}

	t.Run("paused is resumed with its files", func(t *testing.T) {
		inst := create(t)
		run(ctx, t, client, inst, "echo still here > kept.txt")
		states.Pause(t, inst.ID)
		again, err := client.Reconnect(ctx, inst)
		require.NoError(t, err)
		assert.Equal(t, "still here\n", run(ctx, t, client, again, "cat kept.txt").Output)
	})
	t.Run("exited is gone", func(t *testing.T) {
		inst := create(t)
		states.Exit(t, inst.ID)
		_, err := client.Reconnect(ctx, inst)
		require.ErrorIs(t, err, provider.ErrGone, "an exited instance is replaced, not kept")
	})
}
