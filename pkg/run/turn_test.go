package run_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A start gives its turn back before it waits on its provider: with one
// turn for all, a new thread still chooses (and asks for its instance)
// while another's create is held at the provider, and a warm start is
// served meanwhile.
func TestAStartWaitingOnItsProviderHoldsNoTurn(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db, func(o *run.Options) { o.ChoosingAtOnce = 1 })
		w.start(t, "warm")
		release := make(chan struct{})
		w.fake.OnCreate(func(ctx context.Context) {
			select {
			case <-release:
			case <-ctx.Done():
			}
		})
		var wg sync.WaitGroup
		for _, key := range []string{"new-a", "new-b"} {
			wg.Go(func() {
				r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, key)
				assert.NoError(t, err)
				assert.True(t, r.Created)
			})
		}
		require.Eventually(t, func() bool { return w.fake.Calls("create") == 3 }, 10*time.Second, time.Millisecond,
			"both new threads reach their provider, one turn after the other")
		warm := w.start(t, "warm")
		assert.False(t, warm.Created)
		close(release)
		wg.Wait()
	})
}

// Starts take their turns in the order they came, and one waiting for its
// turn reads nothing yet: while a start is held in its choice (another
// transaction is making its thread's row), a warm start behind it has not
// reconnected its instance; it does once the turn is given back.
func TestAStartWaitsForItsTurnBeforeItReads(t *testing.T) {
	db := storetest.Open(t, store.Postgres) // a row lock held elsewhere: SQLite holds the whole database
	w := newWorld(t, db, func(o *run.Options) { o.ChoosingAtOnce = 1 })
	w.start(t, "warm")
	reconnects := w.fake.Calls("reconnect")

	// Another transaction makes the new thread's row and keeps it uncommitted.
	locked, unlock := make(chan struct{}), make(chan struct{})
	go func() {
		_ = db.InTx(context.Background(), func(ctx context.Context) error {
			if _, err := db.In(w.ws.ID).Threads().Lock(ctx, w.agent.ID, "held"); err != nil {
				return err
			}
			close(locked)
			<-unlock
			return nil
		})
	}()
	<-locked
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "held")
		assert.NoError(t, err)
	})
	require.Eventually(t, func() bool { return inChoice(t, db) }, 10*time.Second, time.Millisecond,
		"the new thread's start waits on the row in its choice")
	wg.Go(func() {
		r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "warm")
		assert.NoError(t, err)
		assert.False(t, r.Created)
	})
	require.Eventually(t, func() bool { return run.TurnsWaiting(w.app.Runs) == 1 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, reconnects, w.fake.Calls("reconnect"), "the warm start waits for its turn before it reads")

	close(unlock)
	wg.Wait()
	assert.Equal(t, reconnects+1, w.fake.Calls("reconnect"))
	assert.Equal(t, 0, run.TurnsWaiting(w.app.Runs))
}

// inChoice tells whether a session of the database waits for a lock.
func inChoice(t *testing.T, db *store.DB) bool {
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	var waiting int
	require.NoError(t, sqlDB.QueryRow(`SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting))
	return waiting > 0
}
