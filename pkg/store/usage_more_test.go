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

// startUsageRun starts a run of the fixture's thread on a live instance.
func startUsageRun(t *testing.T, db *store.DB, f usageFixture) auxilia.Run {
	ctx := context.Background()
	inst, err := db.Instances().Claim(ctx, f.thread, f.sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
	require.NoError(t, err)
	_, err = db.Instances().MarkLive(ctx, inst.ID, "ref-1", "/workspace", auxilia.SealedSecret{})
	require.NoError(t, err)
	r, threadInstance, err := db.In(f.ws.ID).Runs().Start(ctx, auxilia.Run{AgentID: f.agent.ID, ThreadKey: f.thread.Key,
		SandboxID: f.sb.ID, InstanceID: inst.ID, Provider: f.sb.Provider})
	require.NoError(t, err)
	require.Equal(t, f.thread.ID, r.ThreadID)
	require.Equal(t, inst.ID, threadInstance, "the claim pointed the thread at its instance")
	return r
}

// Commands, terminals and kept files are metered from their own times,
// attributed to the run's (or the kept files') sandbox, agent and thread;
// a terminal no longer seen counts until it was last seen.
func TestUsageSpansFollowTheirOwnTimes(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		r := startUsageRun(t, db, f)
		runs := db.In(f.ws.ID).Runs()
		t0 := store.Now().Add(-time.Hour)
		require.NoError(t, runs.Commands(ctx, []auxilia.CommandUse{
			commandOf(r, t0, t0.Add(1500*time.Millisecond)),
			commandOf(r, t0.Add(time.Minute), t0.Add(time.Minute)), // answered at once
		}))
		closed, crashed := auxilia.NewID(), auxilia.NewID()
		require.NoError(t, runs.TerminalOpened(ctx, r.ID, closed, t0.Add(2*time.Minute)))
		require.NoError(t, runs.TerminalSeen(ctx, closed, t0.Add(3*time.Minute)))
		require.NoError(t, runs.TerminalClosed(ctx, closed, t0.Add(4*time.Minute)))
		require.NoError(t, runs.TerminalSeen(ctx, closed, t0.Add(5*time.Minute)), "seen after closing")
		require.NoError(t, runs.TerminalOpened(ctx, r.ID, crashed, t0.Add(10*time.Minute)))
		require.NoError(t, runs.TerminalSeen(ctx, crashed, t0.Add(11*time.Minute)))
		kept, err := db.In(f.ws.ID).Kept().Add(ctx, auxilia.KeptFiles{SandboxID: f.sb.ID, ThreadID: f.thread.ID,
			ProviderRef: "kept-1", At: t0.Add(20 * time.Minute), ForgetAfter: t0.Add(48 * time.Hour), Bytes: 3 << 30})
		require.NoError(t, err)
		before := store.Now()
		require.NoError(t, db.In(f.ws.ID).Kept().Delete(ctx, kept.ID))
		after := store.Now()

		now := t0.Add(time.Hour)
		got, err := db.In(f.ws.ID).Usage().Spans(ctx, t0.Add(-time.Hour), now.Add(time.Hour), now)
		require.NoError(t, err)
		require.Len(t, got, 5)
		for _, s := range got {
			assert.Equal(t, f.sb.ID, s.SandboxID)
			assert.Equal(t, "box", s.SandboxName)
			assert.Equal(t, "local", s.Provider)
			assert.Equal(t, f.agent.ID, s.AgentID)
			assert.Equal(t, "Analyst", s.AgentName)
			assert.Equal(t, f.thread.ID, s.ThreadID)
			assert.Equal(t, "t1", s.ThreadKey)
		}
		states := []string{got[0].State, got[1].State, got[2].State, got[3].State, got[4].State}
		assert.Equal(t, []string{auxilia.UsageCommand, auxilia.UsageCommand, auxilia.UsageTerminal, auxilia.UsageTerminal, auxilia.UsageKept}, states)
		assert.True(t, got[0].Start.Equal(t0))
		assert.Equal(t, 1500*time.Millisecond, got[0].End.Sub(got[0].Start))
		assert.True(t, got[1].Start.Equal(got[1].End))
		assert.True(t, got[2].Start.Equal(t0.Add(2*time.Minute)))
		assert.True(t, got[2].End.Equal(t0.Add(4*time.Minute)), "closed, whatever was seen after")
		assert.True(t, got[3].End.Equal(t0.Add(11*time.Minute)), "unseen since: until it was last seen")
		assert.True(t, got[4].Start.Equal(t0.Add(20*time.Minute)), "kept from the kept files' own time")
		assert.False(t, got[4].End.Before(before), "until deleted")
		assert.False(t, got[4].End.After(after))
		assert.Equal(t, int64(3<<30), got[4].Bytes)

		fresh, err := db.In(f.ws.ID).Usage().Spans(ctx, t0, t0.Add(time.Hour), t0.Add(11*time.Minute+30*time.Second))
		require.NoError(t, err)
		require.Len(t, fresh, 5)
		assert.True(t, fresh[3].End.IsZero(), "seen lately: still open")

		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		none, err := db.In(other.ID).Usage().Spans(ctx, t0.Add(-time.Hour), now.Add(time.Hour), now)
		require.NoError(t, err)
		assert.Empty(t, none, "another workspace sees none of them")
	})
}

// The metrics' snapshot counts each workspace's commands, their seconds,
// its terminal seconds and kept byte-seconds, ever, and its bytes kept now.
func TestUsageSnapshotCountsCommandsTerminalsAndKeptFiles(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		r := startUsageRun(t, db, f)
		runs := db.In(f.ws.ID).Runs()
		t0 := store.Now().Add(-time.Hour)
		require.NoError(t, runs.Commands(ctx, []auxilia.CommandUse{commandOf(r, t0, t0.Add(1500*time.Millisecond))}))
		require.NoError(t, runs.Commands(ctx, []auxilia.CommandUse{commandOf(r, t0, t0.Add(2*time.Second))}))
		open, closed := auxilia.NewID(), auxilia.NewID()
		require.NoError(t, runs.TerminalOpened(ctx, r.ID, closed, t0))
		require.NoError(t, runs.TerminalClosed(ctx, closed, t0.Add(time.Minute)))
		require.NoError(t, runs.TerminalOpened(ctx, r.ID, open, t0))
		require.NoError(t, runs.TerminalSeen(ctx, open, t0.Add(20*time.Second)))
		gone, err := db.In(f.ws.ID).Kept().Add(ctx, auxilia.KeptFiles{SandboxID: f.sb.ID, ThreadID: f.thread.ID,
			ProviderRef: "kept-1", At: t0, ForgetAfter: t0.Add(48 * time.Hour), Bytes: 1000})
		require.NoError(t, err)
		require.NoError(t, db.In(f.ws.ID).Kept().Delete(ctx, gone.ID))
		deleted, err := db.In(f.ws.ID).Usage().Spans(ctx, t0, t0.Add(2*time.Hour), t0.Add(2*time.Hour))
		require.NoError(t, err)
		_, err = db.In(f.ws.ID).Kept().Add(ctx, auxilia.KeptFiles{SandboxID: f.sb.ID, ThreadID: f.thread.ID,
			ProviderRef: "kept-2", At: t0.Add(time.Minute), ForgetAfter: t0.Add(48 * time.Hour), Bytes: 10})
		require.NoError(t, err)
		now := t0.Add(2 * time.Hour)

		got, err := db.System("test").UsageSnapshot(ctx, t0, now)
		require.NoError(t, err)
		require.Len(t, got, 1)
		assert.Equal(t, int64(2), got[0].Commands)
		assert.InDelta(t, 3.5, got[0].CommandSeconds, 1e-3)
		assert.InDelta(t, 80.0, got[0].TerminalSeconds, 1e-3, "the closed one's minute, the open one until last seen")
		var keptFor float64
		for _, sp := range deleted {
			if sp.State == auxilia.UsageKept {
				keptFor = sp.End.Sub(t0).Seconds()
			}
		}
		require.Greater(t, keptFor, 3590.0, "kept until deleted, an hour on")
		assert.InDelta(t, 1000*keptFor+10*(7200-60), got[0].KeptByteSeconds, 1)
		assert.Equal(t, int64(10), got[0].KeptBytes, "kept now")
	})
}

// commandOf is a command of the run r, as the run service meters it.
func commandOf(r auxilia.Run, started, ended time.Time) auxilia.CommandUse {
	return auxilia.CommandUse{RunID: r.ID, SandboxID: r.SandboxID, Provider: r.Provider, AgentID: r.AgentID,
		ThreadID: r.ThreadID, Started: started, Ended: ended}
}
