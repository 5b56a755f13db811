package run_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// edit patches the world's sandbox and keeps its new version.
func (w *world) edit(t *testing.T, patch string) {
	t.Helper()
	sb, err := w.app.Sandboxes.Patch(context.Background(), w.ws.ID, w.sandbox.ID, []byte(patch), nil)
	require.NoError(t, err)
	w.sandbox = sb
}

func (w *world) keep(t *testing.T) run.PoolReport {
	t.Helper()
	rep, err := w.app.Runs.KeepPools(context.Background())
	require.NoError(t, err)
	return rep
}

func (w *world) pool(t *testing.T) auxilia.PoolStatus {
	t.Helper()
	sb, err := w.app.Sandboxes.Get(context.Background(), w.ws.ID, w.sandbox.ID)
	require.NoError(t, err)
	st, err := w.app.Runs.PoolStatus(context.Background(), sb)
	require.NoError(t, err)
	return st
}

// A new thread's first run takes a ready instance: one reconnect (its probe,
// as a warm run's) and the relabel beside it, no probe and no create; the
// next pass makes a replacement.
func TestAPoolServesANewThreadAsFastAsAWarmRun(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":2}}}`)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolWaiting, Size: 2}, w.pool(t), "nothing is on its way before the pool job passes")
		assert.Equal(t, run.PoolReport{Created: 2}, w.keep(t))
		pooled := w.fake.Live()
		require.Len(t, pooled, 2)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolReady, Size: 2, Ready: 2}, w.pool(t))

		w.fake.ResetCalls()
		first := w.start(t, "t1")
		assert.Contains(t, pooled, first.InstanceRef)
		assert.False(t, first.Created, "the pool made it, not the run")
		assert.Empty(t, first.Notice)
		assert.Equal(t, map[string]int{"reconnect": 1, "relabel": 1}, w.fake.AllCalls())

		again := w.start(t, "t1")
		assert.Equal(t, first.InstanceRef, again.InstanceRef, "the thread keeps it")
		assert.Equal(t, 1, w.pool(t).Ready)

		assert.Equal(t, run.PoolReport{Created: 1}, w.keep(t), "the claimed one is replaced")
		assert.Len(t, w.fake.Live(), 3)
		assert.Equal(t, 2, w.pool(t).Ready)
	})
}

// Without a ready instance a run creates as it always did.
func TestAnEmptyPoolCreatesAsBefore(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		r := w.start(t, "t1")
		assert.True(t, r.Created)
		assert.Equal(t, 1, w.fake.Calls("create"))
		assert.Zero(t, w.fake.Calls("relabel"))
	})
}

// A pool a choice found empty is not asked again ahead of the next new
// threads' turns: in a burst larger than the pool, a start the pool cannot
// serve claims once, in its choice, not also ahead of its turn. Nothing is
// lost by it: an instance another replica's pool job makes meanwhile is
// still claimed, in the start's turn.
func TestAPoolFoundEmptyIsAskedOnceAheadOfTheTurns(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		w.keep(t)
		require.False(t, w.start(t, "t1").Created, "the pool serves the first")

		statements := db.CountStatements()
		cost := func(thread string) (auxilia.Run, int64) {
			before := statements.Load()
			r := w.start(t, thread)
			return r, statements.Load() - before
		}
		finding, found := cost("t2")
		assert.True(t, finding.Created)
		known, skipped := cost("t3")
		assert.True(t, known.Created)
		assert.Less(t, skipped, found, "the start after the one that found the pool empty claims nothing ahead of its turn")

		replica := app.New(db, w.keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{w.fake}})
		_, err := replica.Runs.KeepPools(context.Background())
		require.NoError(t, err)
		r := w.start(t, "t4")
		assert.False(t, r.Created, "the instance the other replica made is claimed in the turn")
	})
}

// A pool's instance found gone when claimed is forgotten: the thread gets
// another, and no notice, for it had no files there.
func TestAGonePoolInstanceIsPassedOver(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		w.keep(t)
		w.fake.Vanish(w.fake.Live()[0])
		r := w.start(t, "t1")
		assert.True(t, r.Created)
		assert.False(t, r.Replaced)
		assert.Empty(t, r.Notice)
		assert.Equal(t, []string{r.InstanceRef}, w.fake.Live())
	})
}

// Editing the sandbox retires what the old config made (destroyed by the
// reaper, never handed out), shrinking retires the surplus, size 0 retires
// all, and an instance ready past max_idle_minutes is replaced.
func TestEditsRetireThePoolsInstances(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		w.edit(t, `{"config":{"pool":{"size":3}}}`)
		w.keep(t)
		old := w.fake.Live()

		w.edit(t, `{"config":{"timeout":60}}`)
		r := w.start(t, "t1")
		assert.True(t, r.Created, "an instance of the old config is never handed out")
		assert.Equal(t, run.PoolReport{Created: 3, Retired: 3}, w.keep(t))
		rep, err := w.app.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, rep.Destroyed)
		for _, id := range old {
			assert.NotContains(t, w.fake.Live(), id)
		}

		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		assert.Equal(t, 3, w.keep(t).Retired, "a new version retires them all")
		w.keep(t)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolReady, Size: 1, Ready: 1}, w.pool(t))

		sqlDB, err := db.SQL()
		require.NoError(t, err)
		_, err = sqlDB.Exec("UPDATE instances SET updated_at = $1 WHERE thread_id IS NULL AND status = 'live'", time.Now().Add(-2*time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 0, w.pool(t).Ready, "past max_idle_minutes it is not ready any more")
		assert.Equal(t, run.PoolReport{Created: 1, Retired: 1}, w.keep(t), "…and is replaced")

		w.edit(t, `{"config":{"pool":{"size":0}}}`)
		assert.Equal(t, 1, w.keep(t).Retired)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolOff}, w.pool(t))
	})
}

// A pool whose creates fail backs off, longer each time, and stops after
// PoolFailureLimit failures in a row, saying why, until the sandbox is edited.
func TestFailingCreatesBackOffThenStop(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":2}}}`)
		w.fake.Fail("create", provider.Errorf(provider.ErrQuota, "fake", "create", "out of sandboxes"))
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		var waits []time.Duration
		for i := 1; i <= run.PoolFailureLimit; i++ {
			assert.Equal(t, 2, w.keep(t).Failed)
			assert.Zero(t, w.keep(t).Failed, "it waits before trying again")
			st := w.pool(t)
			assert.Equal(t, i, st.Failures)
			assert.Contains(t, st.Detail, "out of sandboxes")
			if i < run.PoolFailureLimit {
				assert.Equal(t, auxilia.PoolFailing, st.State)
				require.NotNil(t, st.RetryAt)
				waits = append(waits, time.Until(*st.RetryAt))
				_, err = sqlDB.Exec("UPDATE pools SET retry_at = $1", time.Now().Add(-time.Second))
				require.NoError(t, err)
			} else {
				assert.Equal(t, auxilia.PoolStopped, st.State)
			}
		}
		for i := 1; i < len(waits); i++ {
			assert.Greater(t, waits[i], waits[i-1], "each wait is longer")
		}
		calls := w.fake.Calls("create")
		w.keep(t)
		assert.Equal(t, calls, w.fake.Calls("create"), "a stopped pool makes nothing")

		w.fake.Fail("create", nil)
		w.edit(t, `{"description":"fixed"}`)
		assert.Equal(t, 2, w.keep(t).Created, "an edit starts it again")
		assert.Equal(t, auxilia.PoolReady, w.pool(t).State)
	})
}

// A stopped pool probed healthy tries once more; one more failure stops it again.
func TestAHealthyProbeGivesAStoppedPoolOneTry(t *testing.T) {
	db := storetest.Open(t, store.SQLite)
	w := newWorld(t, db)
	w.edit(t, `{"config":{"pool":{"size":1}}}`)
	w.fake.Fail("create", errors.New("boom"))
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	for range run.PoolFailureLimit {
		w.keep(t)
		_, err = sqlDB.Exec("UPDATE pools SET retry_at = $1 WHERE retry_at IS NOT NULL", time.Now().Add(-time.Second))
		require.NoError(t, err)
	}
	require.Equal(t, auxilia.PoolStopped, w.pool(t).State)
	_, err = w.app.Sandboxes.ProbeSaved(context.Background(), w.ws.ID, w.sandbox.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, w.keep(t).Failed, "one more try")
	assert.Equal(t, auxilia.PoolStopped, w.pool(t).State, "and stopped again at once")
}

// Two replicas on one Postgres: threads starting at once on both never get
// the same pool instance, and each instance the pool made is used once.
func TestTwoReplicasNeverHandOutOneInstanceTwice(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewPostgresDatabase(t)
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	fake := providertest.NewFake(t.TempDir())
	replica := func() *app.App {
		db, err := store.Open(ctx, url, "")
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return app.New(db, keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{fake}})
	}
	a, b := replica(), replica()
	ws, err := a.DB.System("test").Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Fake", Provider: "fake",
		Config: []byte(`{"pool":{"size":20}}`)})
	require.NoError(t, err)
	ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
	require.NoError(t, err)
	_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
	require.NoError(t, err)
	_, err = a.Runs.KeepPools(ctx)
	require.NoError(t, err)
	pooled := map[string]bool{}
	for _, id := range fake.Live() {
		pooled[id] = true
	}
	require.Len(t, pooled, 20)

	const threads = 40
	refs := make([]string, threads)
	var wg sync.WaitGroup
	for i := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := a.Runs
			if i%2 == 1 {
				svc = b.Runs
			}
			r, err := svc.Start(ctx, ws.ID, ag.ID, fmt.Sprintf("t%d", i))
			if assert.NoError(t, err) {
				refs[i] = r.InstanceRef
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	fromPool := 0
	for _, ref := range refs {
		assert.False(t, seen[ref], "instance %s was handed out twice", ref)
		seen[ref] = true
		if pooled[ref] {
			fromPool++
		}
	}
	assert.Equal(t, 20, fromPool, "every pool instance served one thread")
}

// The reaper knows pool instances: one whose creator died (its lease ran
// out) is released and destroyed like a thread's, found by its labels.
func TestTheReaperCleansUpAPoolCreateWhoseCreatorDied(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		inst, err := db.System("pools").Pools().Add(ctx, w.sandbox, time.Now().Add(-time.Minute))
		require.NoError(t, err)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolWaiting, Size: 1}, w.pool(t),
			"a create whose creator died is not on its way, even before the reaper passes")
		rep, err := w.app.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, rep.Abandoned)
		assert.Equal(t, 1, rep.Destroyed, "the provider never made it: nothing is left to destroy")
		got, err := db.In(w.ws.ID).Instances().Get(ctx, inst.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.InstanceDestroyed, got.Status)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolWaiting, Size: 1}, w.pool(t))
	})
}

// A sandbox of a provider this server does not have still shows its view:
// its pool reads as off rather than failing the read.
func TestThePoolOfAnUnknownProviderReadsAsOff(t *testing.T) {
	db := storetest.Open(t, store.SQLite)
	w := newWorld(t, db)
	sb := w.sandbox
	sb.Provider = "retired"
	st, err := w.app.Runs.PoolStatus(context.Background(), sb)
	require.NoError(t, err)
	assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolOff}, st)
}

// A provider that accepts the connection and never answers holds up its
// own sandbox's pool only: another workspace's pool, listed after it, is
// made while the stuck create still waits, and its view never says
// creating when nothing is on its way.
func TestAStuckProviderStallsNoOtherPool(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db, func(o *run.Options) { o.CreateLease = time.Minute })
		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		w.fake.Stall(w.sandbox.ID)
		other, err := db.System("test").Workspaces().Ensure(ctx, "globex")
		require.NoError(t, err)
		healthy, err := w.app.Sandboxes.Create(ctx, other.ID, sandbox.Input{Name: "Healthy", Provider: "fake",
			Config: []byte(`{"pool":{"size":1}}`)})
		require.NoError(t, err)
		require.Less(t, w.sandbox.ID, healthy.ID, "the stuck sandbox comes first in a pass")
		poolOf := func(sb auxilia.Sandbox) auxilia.PoolStatus {
			st, err := w.app.Runs.PoolStatus(ctx, sb)
			require.NoError(t, err)
			return st
		}
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolWaiting, Size: 1}, poolOf(healthy))

		pass, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = w.app.Runs.KeepPools(pass)
		}()
		defer func() { cancel(); <-done }()
		require.Eventually(t, func() bool { return poolOf(healthy).Ready == 1 }, 10*time.Second, 20*time.Millisecond,
			"the healthy pool waited for the stuck provider")
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolReady, Size: 1, Ready: 1}, poolOf(healthy))
		require.Eventually(t, func() bool { return poolOf(w.sandbox).Creating == 1 }, 10*time.Second, 20*time.Millisecond)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolCreating, Size: 1, Creating: 1}, poolOf(w.sandbox))
		select {
		case <-done:
			t.Fatal("the pass ended before the stuck create's deadline")
		default:
		}
	})
}

// aheadCounting counts a workspace's claims ahead of the view
// (ClaimForNewThread), the round trip a known plan saves.
type aheadCounting struct {
	run.WarmPools
	n *int
}

func (c aheadCounting) ClaimForNewThread(ctx context.Context, agentID, key string, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error) {
	*c.n++
	return c.WarmPools.ClaimForNewThread(ctx, agentID, key, sb, freshAfter)
}

// Once an agent's new thread has claimed from its pool, the next new
// threads' starts claim in their view's round trip on Postgres; an edit of
// the sandbox (a new version, a pool of its own) makes the next start
// claim on its own again, from the new pool, and the ones after it in
// their view. A warm start's view claims nothing.
func TestAnAgentsNewThreadsClaimInTheirViewOnceItsPoolIsKnown(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ahead := 0
		pools := w.app.Runs.WarmPools
		w.app.Runs.WarmPools = func(ws string) run.WarmPools { return aheadCounting{pools(ws), &ahead} }
		inView := db.Dialect() == store.Postgres
		w.edit(t, `{"config":{"pool":{"size":3}}}`)
		w.keep(t)
		fromPool := func(thread string, aheadAfter int) auxilia.Run {
			t.Helper()
			r := w.start(t, thread)
			assert.False(t, r.Created, "%s is served by the pool", thread)
			assert.Equal(t, aheadAfter, ahead, "claims ahead of the view after %s", thread)
			return r
		}

		fromPool("t1", 1)
		fromPool("t2", map[bool]int{true: 1, false: 2}[inView])
		assert.Equal(t, 1, w.pool(t).Ready)
		warm := w.start(t, "t1")
		assert.False(t, warm.Created)
		assert.Equal(t, 1, w.pool(t).Ready, "the warm start claimed nothing")

		old := w.fake.Live()
		w.edit(t, `{"config":{"timeout":60}}`)
		w.keep(t)
		before := ahead
		r := fromPool("t3", before+1)
		assert.NotContains(t, old, r.InstanceRef, "an instance of the new version's pool")
		fromPool("t4", map[bool]int{true: before + 1, false: before + 2}[inView])
	})
}
