package daytona_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Keeping costs the snapshot request and the look that finds it active;
// a restore costs a create and the look at the snapshot before it.
func TestKeepAndRestoreCostTheirCalls(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{})
	run(t, client, inst, "echo kept > f.txt")

	fake.ResetCalls()
	kept, err := client.Keep(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{daytonatest.OpCreateSandboxSnapshot: 1, daytonatest.OpGetSnapshot: 1}, fake.AllCalls())
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state, "the sandbox is left as it was")

	fake.ResetCalls()
	fresh, err := client.Create(ctx, provider.Labels{Thread: "th"})
	require.NoError(t, err)
	created := fake.AllCalls()
	fake.ResetCalls()
	restored, err := client.CreateFrom(ctx, provider.Labels{Thread: "th"}, kept)
	require.NoError(t, err)
	created[daytonatest.OpGetSnapshot]++
	assert.Equal(t, created, fake.AllCalls(), "a restore costs a create and a look at the snapshot")
	assert.NotEqual(t, fresh.ID, restored.ID)
	assert.Equal(t, "kept\n", run(t, client, restored, "cat f.txt").Output)
}

// Daytona makes the snapshot in the background: the sandbox reads
// "snapshotting" and the snapshot is not there until it is back.
// The snapshot's size, which Daytona answers in GiB, is the kept files'
// bytes: 5000 more bytes in the sandbox make a snapshot 5000 bytes bigger.
func TestKeptBytesAreTheSnapshotsSize(t *testing.T) {
	ctx := context.Background()
	_, client, inst := started(t, daytonatest.Options{})
	run(t, client, inst, "echo kept > f.txt")
	small, err := client.Keep(ctx, inst)
	require.NoError(t, err)
	run(t, client, inst, "head -c 5000 /dev/zero > more.bin")
	big, err := client.Keep(ctx, inst)
	require.NoError(t, err)
	assert.Positive(t, small.Bytes)
	assert.Equal(t, small.Bytes+5000, big.Bytes)
}

func TestKeepWaitsForTheSnapshot(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{Transition: 3})
	require.NoError(t, client.Pause(ctx, inst))
	kept, err := client.Keep(ctx, inst)
	require.NoError(t, err)
	assert.Contains(t, fake.SnapshotNames(), mustName(t, kept))
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "stopped", state, "a paused sandbox stays paused")
}

func TestKeepRefusedByDaytona(t *testing.T) {
	ctx := context.Background()
	_, client, inst := started(t, daytonatest.Options{NoSnapshotRegistry: true})
	_, err := client.Keep(ctx, inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "No internal registry")

	fake, client, inst := started(t, daytonatest.Options{})
	require.NoError(t, fake.Archive(inst.ID))
	_, err = client.Keep(ctx, inst)
	require.ErrorIs(t, err, provider.ErrUnsupported, "an archived sandbox is not snapshotted")
	assert.Contains(t, err.Error(), "started or stopped")
}

func TestRestoreFromAForgottenSnapshotIsGone(t *testing.T) {
	ctx := context.Background()
	_, client, inst := started(t, daytonatest.Options{})
	kept, err := client.Keep(ctx, inst)
	require.NoError(t, err)
	require.NoError(t, client.Forget(ctx, kept))
	require.NoError(t, client.Forget(ctx, kept), "forgetting twice is fine")
	_, err = client.CreateFrom(ctx, provider.Labels{Thread: "th"}, kept)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "not found")
}

func mustName(t *testing.T, kept provider.Kept) string {
	t.Helper()
	var st struct{ Name string }
	require.NoError(t, json.Unmarshal(kept.State, &st))
	return st.Name
}
