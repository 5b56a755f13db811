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

type usageFixture struct {
	ws     auxilia.Workspace
	sb     auxilia.Sandbox
	agent  auxilia.Agent
	thread auxilia.Thread
}

func newUsageFixture(t *testing.T, db *store.DB) usageFixture {
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
	return usageFixture{ws: ws, sb: sb, agent: agent, thread: thread}
}

// step waits a little so that each transition has a time of its own.
func step() { time.Sleep(3 * time.Millisecond) }

// An instance driven through its lifecycle is metered in intervals that
// begin and end exactly at the times its own row recorded.
func TestUsageIntervalsFollowTheLifecyclesOwnTimes(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		inst, err := db.Instances().Claim(ctx, f.thread, f.sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		step()
		_, err = db.Instances().MarkLive(ctx, inst.ID, "ref-1", "/workspace", auxilia.SealedSecret{})
		require.NoError(t, err)
		live, err := db.Instances().Get(ctx, inst.ID)
		require.NoError(t, err)
		step()
		pausedAt := store.Now()
		marked, err := db.Instances().MarkPaused(ctx, inst.ID, pausedAt.Add(-time.Hour), pausedAt)
		require.NoError(t, err)
		require.True(t, marked)
		step()
		require.NoError(t, db.Instances().MarkResumed(ctx, inst.ID))
		resumed, err := db.Instances().Get(ctx, inst.ID)
		require.NoError(t, err)
		step()
		require.NoError(t, db.Instances().Release(ctx, inst.ID))
		step()
		require.NoError(t, db.Instances().MarkDestroyed(ctx, inst.ID))
		gone, err := db.Instances().Get(ctx, inst.ID)
		require.NoError(t, err)

		got, err := db.In(f.ws.ID).Usage().Intervals(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		require.Len(t, got, 3)
		for _, iv := range got {
			assert.Equal(t, inst.ID, iv.InstanceID)
			assert.Equal(t, f.sb.ID, iv.SandboxID)
			assert.Equal(t, "box", iv.SandboxName)
			assert.Equal(t, "local", iv.Provider)
			assert.Equal(t, f.agent.ID, iv.AgentID)
			assert.Equal(t, "Analyst", iv.AgentName)
			assert.Equal(t, f.thread.ID, iv.ThreadID)
			assert.Equal(t, "t1", iv.ThreadKey)
		}
		assert.Equal(t, []string{auxilia.UsageRunning, auxilia.UsagePaused, auxilia.UsageRunning},
			[]string{got[0].State, got[1].State, got[2].State})
		assert.True(t, got[0].Start.Equal(inst.CreatedAt), "running from its creation")
		assert.True(t, got[0].End.Equal(pausedAt), "until paused_at")
		assert.True(t, got[1].Start.Equal(pausedAt))
		assert.True(t, got[1].End.Equal(resumed.UpdatedAt), "paused until resumed")
		assert.True(t, got[2].Start.Equal(resumed.UpdatedAt))
		assert.True(t, got[2].End.Equal(gone.UpdatedAt), "a released instance runs at its provider until destroyed")

		events, err := db.In(f.ws.ID).Usage().Events(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		require.Len(t, events, 1)
		assert.Equal(t, auxilia.UsageCreated, events[0].Kind)
		assert.True(t, events[0].At.Equal(live.UpdatedAt))

		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		none, err := db.In(other.ID).Usage().Intervals(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		assert.Empty(t, none, "another workspace sees none of it")
	})
}

// A pool's instance is its sandbox's until a thread claims it, then that
// thread's and its agent's.
func TestUsageOfAPooledInstanceMovesToTheThreadThatClaimsIt(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		inst, err := db.Pools().Add(ctx, f.sb, time.Now().Add(time.Minute))
		require.NoError(t, err)
		_, err = db.Instances().MarkLive(ctx, inst.ID, "ref-1", "/workspace", auxilia.SealedSecret{})
		require.NoError(t, err)
		step()
		claimed, ok, err := db.Pools().Claim(ctx, f.thread, f.sb, time.Now().Add(-time.Hour))
		require.NoError(t, err)
		require.True(t, ok)

		got, err := db.In(f.ws.ID).Usage().Intervals(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, f.sb.ID, got[0].SandboxID)
		assert.Empty(t, got[0].ThreadID, "the pool's")
		assert.Empty(t, got[0].AgentID)
		assert.True(t, got[0].End.Equal(claimed.UpdatedAt))
		assert.Equal(t, f.thread.ID, got[1].ThreadID)
		assert.Equal(t, f.agent.ID, got[1].AgentID)
		assert.True(t, got[1].Start.Equal(claimed.UpdatedAt))
		assert.True(t, got[1].End.IsZero(), "still running")
	})
}

// An instance let go before it was live failed; a live one found gone at
// its provider was replaced.
func TestUsageCountsFailedAndReplacedInstances(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		failed, err := db.Instances().Claim(ctx, f.thread, f.sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		require.NoError(t, db.Instances().MarkDestroyed(ctx, failed.ID))
		lost, err := db.Instances().Claim(ctx, f.thread, f.sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		_, err = db.Instances().MarkLive(ctx, lost.ID, "ref-2", "/workspace", auxilia.SealedSecret{})
		require.NoError(t, err)
		require.NoError(t, db.Instances().MarkDestroyed(ctx, lost.ID))

		events, err := db.In(f.ws.ID).Usage().Events(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		var kinds []string
		for _, e := range events {
			kinds = append(kinds, e.Kind)
			assert.Equal(t, f.thread.ID, e.ThreadID)
		}
		assert.Equal(t, []string{auxilia.UsageFailed, auxilia.UsageCreated, auxilia.UsageReplaced}, kinds)
	})
}

// The metrics' snapshot counts each workspace's open instances by state,
// its seconds since the month's start, and its events.
func TestUsageSnapshotIsPerWorkspace(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		inst, err := db.Instances().Claim(ctx, f.thread, f.sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		_, err = db.Instances().MarkLive(ctx, inst.ID, "ref-1", "/workspace", auxilia.SealedSecret{})
		require.NoError(t, err)
		now := inst.CreatedAt.Add(90 * time.Second)

		got, err := db.System("test").UsageSnapshot(ctx, inst.CreatedAt.Add(30*time.Second), now)
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, "acme", got[0].Workspace)
		assert.Equal(t, 1, got[0].Instances[auxilia.UsageRunning])
		assert.InDelta(t, 60.0, got[0].MonthSeconds[auxilia.UsageRunning], 1e-6, "from the month's start until now")
		assert.Equal(t, int64(1), got[0].Events[auxilia.UsageCreated])
	})
}
