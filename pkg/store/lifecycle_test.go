package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An instance is marked paused only while its thread is still idle: a run
// start or a tool call since the idle job looked keeps it running.
func TestAnInstanceIsMarkedPausedOnlyWhileItsThreadIsIdle(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		db.CheckSandboxesWith(refuseNamed(""))
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
		require.NoError(t, err)
		agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
		require.NoError(t, err)
		thread, err := db.Threads().Lock(ctx, ws.ID, agent.ID, "t1")
		require.NoError(t, err)
		inst, err := db.Instances().Claim(ctx, thread, sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		_, err = db.Instances().MarkLive(ctx, inst.ID, "ref-1", "/workspace", auxilia.SealedSecret{})
		require.NoError(t, err)
		looked := time.Now().UTC().Add(-time.Hour)
		ran(t, db, thread, looked)

		idle, err := db.Threads().IdlePage(ctx, "", time.Now(), 10)
		require.NoError(t, err)
		require.Len(t, idle, 1)
		assert.Equal(t, inst.ID, idle[0].Instance.ID)

		ran(t, db, thread, time.Now().UTC())
		marked, err := db.Instances().MarkPaused(ctx, inst.ID, looked.Add(time.Microsecond), time.Now())
		require.NoError(t, err)
		assert.False(t, marked, "the thread ran since the idle job looked")

		ran(t, db, thread, looked)
		marked, err = db.Instances().MarkPaused(ctx, inst.ID, looked.Add(time.Microsecond), time.Now())
		require.NoError(t, err)
		assert.True(t, marked)
		idle, err = db.Threads().IdlePage(ctx, "", time.Now(), 10)
		require.NoError(t, err)
		assert.Empty(t, idle, "a paused instance is not idle any more")

		require.NoError(t, db.Instances().MarkResumed(ctx, inst.ID))
		got, err := db.Instances().Get(ctx, inst.ID)
		require.NoError(t, err)
		assert.Nil(t, got.PausedAt)
		assert.Equal(t, auxilia.InstanceLive, got.Status)
	})
}

// ran records a run on the thread at `at`.
func ran(t *testing.T, db *store.DB, thread auxilia.Thread, at time.Time) {
	t.Helper()
	got, err := db.Threads().Ran(context.Background(), thread.WorkspaceID, thread.AgentID, thread.Key, at)
	require.NoError(t, err)
	require.Equal(t, thread.ID, got.ID)
}
