package run_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
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

// A start without a live instance waits for its turn, holding nothing,
// while a warm start takes none: with one turn, held by a start waiting on
// a row in its choice (another transaction is making its thread), a new
// thread's start waits, a warm start is served, and the new thread's start
// goes on once the turn is given back.
func TestAWarmStartTakesNoTurn(t *testing.T) {
	db := storetest.Open(t, store.Postgres) // a row lock held elsewhere: SQLite holds the whole database
	w := newWorld(t, db, func(o *run.Options) { o.ChoosingAtOnce = 1 })
	w.start(t, "warm")

	unlock := holdNewThread(w, "held")
	var wg sync.WaitGroup
	for _, key := range []string{"held", "new"} {
		wg.Go(func() {
			r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, key)
			assert.NoError(t, err)
			assert.True(t, r.Created)
		})
		if key == "held" {
			require.Eventually(t, func() bool { return inChoice(t, db) }, 10*time.Second, time.Millisecond,
				"the first start holds the turn, waiting on the row in its choice")
		}
	}
	require.Eventually(t, func() bool { return run.TurnsWaiting(w.app.Runs) == 1 }, 10*time.Second, time.Millisecond,
		"the new thread's start waits for its turn")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	warm, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "warm")
	require.NoError(t, err, "the warm start is served meanwhile")
	assert.False(t, warm.Created)
	assert.Equal(t, 1, run.TurnsWaiting(w.app.Runs))
	assert.Equal(t, 1, w.fake.Calls("create"), "the warm thread's, and no new thread's yet")

	close(unlock)
	wg.Wait()
	assert.Equal(t, 3, w.fake.Calls("create"))
	assert.Equal(t, 0, run.TurnsWaiting(w.app.Runs))
}

// holdNewThread has another transaction make the thread keyed key and keep
// its row uncommitted until unlock is closed.
func holdNewThread(w world, key string) (unlock chan struct{}) {
	locked, unlock := make(chan struct{}), make(chan struct{})
	go func() {
		_ = w.db.InTx(context.Background(), func(ctx context.Context) error {
			if _, err := w.db.In(w.ws.ID).Threads().Lock(ctx, w.agent.ID, key); err != nil {
				return err
			}
			close(locked)
			<-unlock
			return nil
		})
	}()
	<-locked
	return unlock
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

// A start that waited for its turn reads its agent again: bound to
// another sandbox meanwhile, it makes its instance in that one, not in the
// one its first look saw.
func TestAStartThatWaitedForItsTurnTakesItsAgentAsItIsThen(t *testing.T) {
	db := storetest.Open(t, store.Postgres) // a row lock held elsewhere: SQLite holds the whole database
	w := newWorld(t, db, func(o *run.Options) { o.ChoosingAtOnce = 1 })
	ctx := context.Background()
	other, err := w.app.Sandboxes.Create(ctx, w.ws.ID, sandbox.Input{Name: "Other", Provider: "fake"})
	require.NoError(t, err)

	unlock := holdNewThread(w, "held")
	var wg sync.WaitGroup
	wg.Go(func() {
		_, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "held")
		assert.NoError(t, err)
	})
	require.Eventually(t, func() bool { return inChoice(t, db) }, 10*time.Second, time.Millisecond,
		"the first start holds the turn, waiting on the row in its choice")
	started := make(chan auxilia.Run, 1)
	wg.Go(func() {
		r, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "new")
		assert.NoError(t, err)
		started <- r
	})
	require.Eventually(t, func() bool { return run.TurnsWaiting(w.app.Runs) == 1 }, 10*time.Second, time.Millisecond,
		"the new thread's start looked, and waits for its turn")
	_, err = w.app.Agents.Bind(ctx, w.ws.ID, w.agent.ID, other.ID, nil, nil, nil)
	require.NoError(t, err)

	close(unlock)
	wg.Wait()
	r := <-started
	assert.Equal(t, other.ID, r.SandboxID, "the sandbox the agent is bound to once the turn came")
	assert.Equal(t, "Other", r.SandboxName)
}

// A new thread's start that its sandbox's warm pool serves claims its
// instance ahead of the turns: it is served while another start holds the
// only turn, waiting on its thread's row in its choice.
func TestAPooledStartTakesNoTurn(t *testing.T) {
	db := storetest.Open(t, store.Postgres) // a row lock held elsewhere: SQLite holds the whole database
	w := newWorld(t, db, func(o *run.Options) { o.ChoosingAtOnce = 1 })
	ctx := context.Background()
	require.NoError(t, db.InTx(ctx, func(ctx context.Context) error {
		_, err := db.In(w.ws.ID).Threads().Lock(ctx, w.agent.ID, "held")
		return err
	}))
	w.edit(t, `{"config":{"pool":{"size":1}}}`)
	require.Equal(t, run.PoolReport{Created: 1}, w.keep(t))

	unlock := holdNewThread(w, "held") // the thread exists: its row is locked
	held := make(chan auxilia.Run)
	go func() {
		r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "held")
		assert.NoError(t, err)
		held <- r
	}()
	require.Eventually(t, func() bool { return inChoice(t, db) }, 10*time.Second, time.Millisecond,
		"the thread met before chooses under its lock, holding the turn")

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	pooled, err := w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "new")
	require.NoError(t, err, "the pooled start is served meanwhile")
	assert.False(t, pooled.Created, "the pool made it")
	assert.Zero(t, run.TurnsWaiting(w.app.Runs))
	assert.Equal(t, 1, w.fake.Calls("create"), "the pool's only")

	close(unlock)
	r := <-held
	assert.True(t, r.Created, "the pool was empty when its choice was made")
	assert.NotEqual(t, pooled.InstanceRef, r.InstanceRef)
}
