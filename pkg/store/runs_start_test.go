package store_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run is answered as Get reads it without being read back: what Get
// joins, the caller gave.
func TestAStartedRunIsAnsweredAsItIsRead(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		r := startUsageRun(t, db, f)
		runs := db.In(f.ws.ID).Runs()
		statements := db.CountStatements()
		started, threadInstance, err := runs.Start(ctx, auxilia.Run{AgentID: f.agent.ID, ThreadKey: f.thread.Key,
			SandboxID: f.sb.ID, SandboxName: f.sb.Name, Provider: f.sb.Provider, InstanceID: r.InstanceID,
			InstanceRef: "ref-1", Notice: "hello"})
		require.NoError(t, err)
		assert.Equal(t, r.InstanceID, threadInstance)
		want := int64(3) // the thread, the earlier run, the new one
		if db.Dialect() == store.Postgres {
			want = 2 // the thread, then the earlier run and the new one in one statement
		}
		assert.Equal(t, want, statements.Load())
		read, err := runs.Get(ctx, started.ID)
		require.NoError(t, err)
		assert.Equal(t, read.ID, started.ID)
		assert.Equal(t, read.StartedAt.UTC(), started.StartedAt.UTC())
		assert.Equal(t, read.LastActivityAt.UTC(), started.LastActivityAt.UTC())
		// The same instants, in the locations their scans gave them.
		started.StartedAt, started.LastActivityAt = read.StartedAt, read.LastActivityAt
		assert.Equal(t, read, started)

		earlier, err := runs.Get(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunCompleted, earlier.Status, "the thread's earlier run ended")
		assert.Equal(t, auxilia.EndedByNewerRun, earlier.EndedBy)
		thread, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, f.thread.Key)
		require.NoError(t, err)
		require.NotNil(t, thread.LastRunAt)
		assert.Equal(t, started.StartedAt.UTC(), thread.LastRunAt.UTC(), "the thread records its last run")
	})
}

// A run on a thread not made yet is not found, and writes nothing.
func TestARunOnAThreadNotMadeIsNotFound(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		_, _, err := db.In(f.ws.ID).Runs().Start(ctx, auxilia.Run{AgentID: f.agent.ID, ThreadKey: "not-made"})
		require.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "%v", err)
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		var runs int
		require.NoError(t, sqlDB.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&runs))
		assert.Zero(t, runs)
	})
}
