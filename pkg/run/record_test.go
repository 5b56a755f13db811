package run_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// count runs a COUNT(*) query on the world's database.
func (w world) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	sqlDB, err := w.db.SQL()
	require.NoError(t, err)
	var n int
	require.NoError(t, sqlDB.QueryRow(query, args...).Scan(&n))
	return n
}

// A warm start records its run after its reconnect answered, in one
// round trip on Postgres: until then, nothing of it is written and no
// transaction is open.
func TestAWarmStartRecordsItsRunOnceItsInstanceAnswered(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		first := w.start(t, "t1")
		w.fake.SetLatency(300 * time.Millisecond)
		started := make(chan auxilia.Run, 1)
		go func() {
			r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "t1")
			assert.NoError(t, err)
			started <- r
		}()
		time.Sleep(150 * time.Millisecond) // the reconnect is in flight
		assert.Equal(t, 1, w.count(t, `SELECT COUNT(*) FROM runs`), "nothing is written before the instance answered")
		if db.Dialect() == store.Postgres {
			assert.Zero(t, w.count(t, `SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database()
				AND state LIKE 'idle in transaction%'`), "no transaction waits on the provider")
		}

		second := <-started
		assert.Equal(t, first.InstanceRef, second.InstanceRef)
		assert.Equal(t, 1, w.count(t, `SELECT COUNT(*) FROM runs WHERE status = 'active' AND id = $1`, second.ID))
		assert.Equal(t, 2, w.count(t, `SELECT COUNT(*) FROM audit_entries WHERE action = 'run.start'`))
		got, err := w.app.Runs.Get(context.Background(), w.ws.ID, second.ID)
		require.NoError(t, err)
		assert.Equal(t, "t1", got.ThreadKey)
	})
}

// A start whose reconnect fails leaves nothing of its own: the thread's
// run goes on, no entry says it started.
func TestAStartWhoseReconnectFailedLeavesNothing(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		first := w.start(t, "t1")
		w.fake.Fail("reconnect", errors.Join(provider.ErrUnreachable, errors.New("the provider is down")))
		_, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "t1")
		require.Error(t, err)
		got, err := w.app.Runs.Get(context.Background(), w.ws.ID, first.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunActive, got.Status, "the thread's run is not ended by a start that failed")
		assert.Equal(t, 1, w.count(t, `SELECT COUNT(*) FROM runs`))
		assert.Equal(t, 1, w.count(t, `SELECT COUNT(*) FROM audit_entries WHERE action = 'run.start'`))
	})
}

// Warm starts at once on one thread each record their run; one stays active.
func TestWarmStartsAtOnceOnOneThread(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		first := w.start(t, "t1")
		w.fake.SetLatency(20 * time.Millisecond)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "t1")
				if assert.NoError(t, err) {
					assert.Equal(t, first.InstanceRef, r.InstanceRef)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, 1, w.count(t, `SELECT COUNT(*) FROM runs WHERE status = 'active'`))
		assert.Equal(t, 9, w.count(t, `SELECT COUNT(*) FROM runs`))
		assert.Equal(t, 9, w.count(t, `SELECT COUNT(*) FROM audit_entries WHERE action = 'run.start'`))
	})
}
