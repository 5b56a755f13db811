package run_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReaperDestroysWhatNoThreadUses(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		w.start(t, "t1")
		w.start(t, "t2")
		require.Len(t, w.fake.Live(), 2)

		// The sandbox is deleted with its agent detached: its instances wait for the reaper.
		require.NoError(t, w.app.Sandboxes.Delete(ctx, w.ws.ID, w.sandbox.ID, nil, true))
		assert.Len(t, w.fake.Live(), 2, "deleting is quick: the provider is not called")

		w.fake.Fail("destroy", provider.Errorf(provider.ErrUnreachable, "fake", "destroy", "down"))
		rep, err := w.app.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, rep.Failed, "a provider that does not answer is tried again next pass")
		assert.Len(t, w.fake.Live(), 2)

		w.fake.Fail("destroy", nil)
		rep, err = w.app.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, rep.Destroyed, "with the deleted sandbox's retained credentials")
		assert.Empty(t, w.fake.Live(), "nothing leaks at the provider")

		require.NoError(t, db.System("test").Purge(ctx))
		_, _, err = db.System("test").Sandboxes().GetSealedAny(ctx, w.sandbox.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "the deleted sandbox and its secret are purged once nothing needs them")
	})
}

func TestReaperExpiresIdleRunsAndAbandonedCreations(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db, func(o *run.Options) { o.IdleTimeout = 100 * time.Millisecond })
		ctx := context.Background()
		r := w.start(t, "t1")
		time.Sleep(150 * time.Millisecond)
		rep, err := w.app.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Expired)
		assert.Equal(t, 1, w.fake.Calls("persist"), "an expired run's files are saved")
		got, err := db.In(w.ws.ID).Runs().Get(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunExpired, got.Status)

		// A creator that dies mid-creation leaves a claim whose lease runs out.
		w.fake.Fail("create", errors.New("the process died"))
		_, err = w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "t2")
		require.Error(t, err)
		w.fake.Fail("create", nil)
		thread, err := db.In(w.ws.ID).Threads().Lock(ctx, w.agent.ID, "t3")
		require.NoError(t, err)
		_, err = db.In(w.ws.ID).Instances().Claim(ctx, thread, w.sandbox.ID, auxilia.NewID(), time.Now().Add(50*time.Millisecond))
		require.NoError(t, err)
		time.Sleep(100 * time.Millisecond)
		rep, err = w.app.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Abandoned)
		next := w.start(t, "t3")
		assert.True(t, next.Created, "the thread gets a new instance")
	})
}

func TestDeletingAThreadDestroysItsInstance(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		w.start(t, "t1")
		require.Len(t, w.fake.Live(), 1)
		require.NoError(t, w.app.Runs.DeleteThread(ctx, w.ws.ID, w.agent.ID, "t1", nil))
		assert.Empty(t, w.fake.Live())
		_, err := w.app.Runs.Thread(ctx, w.ws.ID, w.agent.ID, "t1")
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound))
	})
}
