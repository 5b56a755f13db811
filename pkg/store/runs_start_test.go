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

// A run on its thread's instance is recorded with its audit entry in one
// transaction sent at once, on Postgres: the thread's row, the earlier
// run's end, the new run and the entry all carry the one transaction's id.
func TestARunOnItsThreadsInstanceIsRecordedInOneTransaction(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	f := newUsageFixture(t, db)
	r := startUsageRun(t, db, f)
	runs := db.In(f.ws.ID).Runs()
	statements := db.CountStatements()
	started, ok, err := runs.StartOnInstance(ctx, auxilia.Run{ID: auxilia.NewID(), AgentID: f.agent.ID, ThreadKey: f.thread.Key,
		SandboxID: f.sb.ID, InstanceID: r.InstanceID}, f.thread.ID, auxilia.AuditEntry{Action: "run.start", ResourceType: "run",
		Outcome: auxilia.OutcomeSuccess, Detail: "on t1"})
	require.NoError(t, err)
	require.True(t, ok, "the thread has the run's instance")
	assert.Equal(t, int64(3), statements.Load())

	sqlDB, err := db.SQL()
	require.NoError(t, err)
	var transactions, rows int
	require.NoError(t, sqlDB.QueryRow(`SELECT COUNT(DISTINCT x::text), COUNT(*) FROM (
		SELECT xmin AS x FROM threads WHERE id = $1
		UNION ALL SELECT xmin FROM runs WHERE id IN ($2, $3)
		UNION ALL SELECT xmin FROM audit_entries WHERE resource_id = $3::text) AS written`,
		f.thread.ID, r.ID, started.ID).Scan(&transactions, &rows))
	assert.Equal(t, 4, rows, "the thread, both runs and the entry")
	assert.Equal(t, 1, transactions)

	earlier, err := runs.Get(ctx, r.ID)
	require.NoError(t, err)
	assert.Equal(t, auxilia.EndedByNewerRun, earlier.EndedBy)
	read, err := runs.Get(ctx, started.ID)
	require.NoError(t, err)
	assert.Equal(t, auxilia.RunActive, read.Status)
	thread, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, f.thread.Key)
	require.NoError(t, err)
	require.NotNil(t, thread.LastRunAt)
	assert.Equal(t, started.StartedAt.UTC(), thread.LastRunAt.UTC())
	entries, err := db.Audit().List(ctx, f.ws.ID, auxilia.AuditFilter{ResourceID: started.ID}, auxilia.PageRequest{Size: 10})
	require.NoError(t, err)
	require.Len(t, entries.Items, 1)
	assert.Equal(t, "on t1", entries.Items[0].Detail)
}

// A run whose thread has another instance now, or that is recorded in a
// transaction or on the embedded database, is left to Start: nothing is
// written.
func TestARunNotOnItsThreadsInstanceIsLeftToStart(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		r := startUsageRun(t, db, f)
		runs := db.In(f.ws.ID).Runs()
		thread, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, f.thread.Key)
		require.NoError(t, err)
		entry := auxilia.AuditEntry{Action: "run.start", ResourceType: "run", Outcome: auxilia.OutcomeSuccess}
		start := func(ctx context.Context, instanceID string) bool {
			_, ok, err := runs.StartOnInstance(ctx, auxilia.Run{ID: auxilia.NewID(), AgentID: f.agent.ID, ThreadKey: f.thread.Key,
				SandboxID: f.sb.ID, InstanceID: instanceID}, f.thread.ID, entry)
			require.NoError(t, err)
			return ok
		}
		assert.False(t, start(ctx, auxilia.NewID()), "another instance")
		require.NoError(t, db.InTx(ctx, func(ctx context.Context) error {
			assert.False(t, start(ctx, r.InstanceID), "in a transaction")
			return nil
		}))
		if db.Dialect() == store.SQLite {
			assert.False(t, start(ctx, r.InstanceID), "on the embedded database")
		}

		sqlDB, err := db.SQL()
		require.NoError(t, err)
		var count int
		require.NoError(t, sqlDB.QueryRow(`SELECT COUNT(*) FROM runs`).Scan(&count))
		assert.Equal(t, 1, count, "no run")
		require.NoError(t, sqlDB.QueryRow(`SELECT COUNT(*) FROM audit_entries WHERE action = 'run.start'`).Scan(&count))
		assert.Zero(t, count, "no entry")
		earlier, err := runs.Get(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunActive, earlier.Status, "the thread's run goes on")
		after, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, f.thread.Key)
		require.NoError(t, err)
		assert.Equal(t, thread.LastRunAt, after.LastRunAt, "the thread's last run is as it was")
	})
}

// A run recorded at once on a connection found killed is left to Start,
// which tries again on another: nothing was written.
func TestARunOnAKilledConnectionIsLeftToStart(t *testing.T) {
	ctx := context.Background()
	db := replica(t, storetest.NewPostgresDatabase(t), "killed-start")
	db.LimitConnections(1) // the one pooled connection is the killed one
	f := newUsageFixture(t, db)
	r := startUsageRun(t, db, f)
	require.Equal(t, 1, terminate(t, "killed-start"))
	_, ok, err := db.In(f.ws.ID).Runs().StartOnInstance(ctx, auxilia.Run{ID: auxilia.NewID(), AgentID: f.agent.ID,
		ThreadKey: f.thread.Key, SandboxID: f.sb.ID, InstanceID: r.InstanceID}, f.thread.ID,
		auxilia.AuditEntry{Action: "run.start", Outcome: auxilia.OutcomeSuccess})
	require.NoError(t, err)
	assert.False(t, ok)
	earlier, err := db.In(f.ws.ID).Runs().Get(ctx, r.ID)
	require.NoError(t, err)
	assert.Equal(t, auxilia.RunActive, earlier.Status, "nothing was written")
}
