package daytona_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Pausing a container costs a look, the pause Daytona refuses for its
// class, and a stop; pausing a stopped sandbox, the look;
// the resume in Reconnect, a look and a start; the files are still there.
func TestPauseAndResumeCostTheirCalls(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{})
	run(t, client, inst, "echo here > f.txt")

	fake.ResetCalls()
	require.NoError(t, client.Pause(ctx, inst))
	assert.Equal(t, map[string]int{daytonatest.OpGetSandbox: 1, daytonatest.OpPauseSandbox: 1, daytonatest.OpStopSandbox: 1}, fake.AllCalls())
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "stopped", state)

	fake.ResetCalls()
	require.NoError(t, client.Pause(ctx, inst))
	assert.Equal(t, map[string]int{daytonatest.OpGetSandbox: 1}, fake.AllCalls(), "a stopped sandbox is paused already")

	fake.ResetCalls()
	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{daytonatest.OpGetSandbox: 1, daytonatest.OpStartSandbox: 1}, fake.AllCalls())
	assert.Equal(t, "here\n", run(t, client, again, "cat f.txt").Output)
}

// Daytona archives a stopped sandbox after a while (auto-archive): the
// paused thread comes back from the archive, with its files.
func TestAPausedSandboxArchivedMeanwhileComesBack(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	run(t, client, inst, "echo here > f.txt")
	require.NoError(t, client.Pause(ctx, inst))
	require.NoError(t, fake.Archive(inst.ID))
	require.NoError(t, client.Pause(ctx, inst), "an archived sandbox is paused already")

	again, err := client.Reconnect(ctx, inst)
	require.NoError(t, err)
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state)
	assert.Equal(t, "here\n", run(t, client, again, "cat f.txt").Output)
}

// A sandbox on its way to started is waited for, then stopped.
func TestPauseWaitsForAStartingSandbox(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{Transition: 2})
	require.NoError(t, fake.Transit(inst.ID, "started", "starting", "started"))
	require.NoError(t, client.Pause(ctx, inst))
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "stopped", state)
}

func TestPauseOfAGoneOrBrokenSandboxIsGone(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Destroy(inst.ID))
	assert.ErrorIs(t, client.Pause(ctx, inst), provider.ErrGone)

	fake, client, inst = started(t, daytonatest.Options{})
	require.NoError(t, fake.Break(inst.ID, "disk failure"))
	err := client.Pause(ctx, inst)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "disk failure")
}
