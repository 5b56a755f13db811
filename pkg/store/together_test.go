package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"
)

// busyThreads are threads of one agent, each with a live instance and a
// run on it, and a line of one place, held until release is called: run
// starts recorded meanwhile wait together.
type busyThreads struct {
	db      *store.DB
	f       usageFixture
	threads []auxilia.Thread
	runs    []auxilia.Run // each thread's run
	release func()
}

func newBusyThreads(t *testing.T, n int) busyThreads {
	b := newThreads(t, n)
	b.holdLine(t)
	return b
}

// newThreads makes the threads, the line not held yet.
func newThreads(t *testing.T, n int) busyThreads {
	t.Helper()
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	b := busyThreads{db: db, f: newUsageFixture(t, db), release: func() {}}
	for i := range n {
		thread, err := db.Threads().Lock(ctx, b.f.ws.ID, b.f.agent.ID, fmt.Sprintf("busy-%d", i))
		require.NoError(t, err)
		f := b.f
		f.thread = thread
		b.threads = append(b.threads, thread)
		b.runs = append(b.runs, startUsageRun(t, db, f))
	}
	return b
}

// holdLine gives the line one place, and holds it until release.
func (b *busyThreads) holdLine(t *testing.T) {
	t.Helper()
	db := b.db
	db.LimitStatementsAtOnce(1)
	t.Cleanup(func() { db.LimitStatementsAtOnce(store.DefaultStatementsAtOnce()) })
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		assert.NoError(t, db.InTx(context.Background(), func(context.Context) error {
			close(held)
			<-release
			return nil
		}))
	}()
	<-held
	var once sync.Once
	b.release = func() { once.Do(func() { close(release); <-done }) }
	t.Cleanup(b.release)
}

// started is what a run start recorded at once came to.
type started struct {
	run auxilia.Run
	ok  bool
	err error
}

// start records a run on thread i's instance, with the id given ("" for a
// new one), and sends its outcome.
func (b busyThreads) start(ctx context.Context, i int, id string, out chan<- started) {
	if id == "" {
		id = auxilia.NewID()
	}
	go func() {
		r, ok, err := b.db.In(b.f.ws.ID).Runs().StartOnInstance(ctx, auxilia.Run{ID: id, AgentID: b.f.agent.ID,
			ThreadKey: b.threads[i].Key, SandboxID: b.f.sb.ID, InstanceID: b.runs[i].InstanceID}, b.threads[i].ID,
			auxilia.AuditEntry{Action: "run.start", Outcome: auxilia.OutcomeSuccess, Detail: b.threads[i].Key})
		out <- started{r, ok, err}
	}()
}

// waitPending waits until n records wait for their batch, its writer in
// line.
func (b busyThreads) waitPending(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool { _, records := b.db.Pending(); return records == n && b.db.Waiting() >= 1 },
		5*time.Second, time.Millisecond)
}

// transactionOf tells which transaction wrote the run id.
func (b busyThreads) transactionOf(t *testing.T, id string) string {
	t.Helper()
	sqlDB, err := b.db.SQL()
	require.NoError(t, err)
	var x string
	require.NoError(t, sqlDB.QueryRow(`SELECT xmin::text FROM runs WHERE id = $1`, id).Scan(&x))
	return x
}

// Run starts recorded while another batch, or anything else, holds the
// line wait together, and go in one transaction with their audit entries:
// one place in line, one commit.
func TestRunStartsRecordedAtOnceGoInOneTransaction(t *testing.T) {
	ctx := context.Background()
	b := newBusyThreads(t, 3)
	_, before := b.db.Batches()
	out := make(chan started, 3)
	for i := range 3 {
		b.start(ctx, i, "", out)
	}
	b.waitPending(t, 3)
	b.release()

	transactions := map[string]bool{}
	for range 3 {
		s := <-out
		require.NoError(t, s.err)
		require.True(t, s.ok)
		transactions[b.transactionOf(t, s.run.ID)] = true
		entries, err := b.db.Audit().List(ctx, b.f.ws.ID, auxilia.AuditFilter{ResourceID: s.run.ID}, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.Len(t, entries.Items, 1, "the run's entry")
		read, err := b.db.In(b.f.ws.ID).Runs().Get(ctx, s.run.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunActive, read.Status)
		assert.Equal(t, entries.Items[0].Detail, read.ThreadKey, "its own entry")
	}
	assert.Len(t, transactions, 1)
	_, after := b.db.Batches()
	assert.Equal(t, 1, after-before)
	for _, r := range b.runs {
		earlier, err := b.db.In(b.f.ws.ID).Runs().Get(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.EndedByNewerRun, earlier.EndedBy)
	}
}

// A batch that fails is undone whole, and each of its records is sent
// again alone: the one that fails gets its own error, and the others are
// recorded.
func TestARecordThatFailsInABatchFailsAlone(t *testing.T) {
	ctx := context.Background()
	b := newBusyThreads(t, 3)
	out := make(chan started, 3)
	b.start(ctx, 0, "", out)
	b.start(ctx, 1, b.runs[0].ID, out) // a run id taken: its insert fails
	b.start(ctx, 2, "", out)
	b.waitPending(t, 3)
	b.release()

	var recorded []string
	failed := 0
	for range 3 {
		s := <-out
		if s.err != nil {
			assert.ErrorIs(t, s.err, gorm.ErrDuplicatedKey)
			failed++
			continue
		}
		require.True(t, s.ok)
		recorded = append(recorded, s.run.ID)
	}
	assert.Equal(t, 1, failed)
	require.Len(t, recorded, 2)
	assert.NotEqual(t, b.transactionOf(t, recorded[0]), b.transactionOf(t, recorded[1]), "each sent alone")
	earlier, err := b.db.In(b.f.ws.ID).Runs().Get(ctx, b.runs[1].ID)
	require.NoError(t, err)
	assert.Equal(t, auxilia.RunActive, earlier.Status, "nothing written for the record that failed")
	entries, err := b.db.Audit().List(ctx, b.f.ws.ID, auxilia.AuditFilter{Action: "run.start"}, auxilia.PageRequest{Size: 10})
	require.NoError(t, err)
	assert.Len(t, entries.Items, 2)
}

// Two starts on one thread in one batch are recorded in the order they
// came: the second ends the first.
func TestStartsOnOneThreadInABatchKeepTheirOrder(t *testing.T) {
	ctx := context.Background()
	b := newBusyThreads(t, 1)
	first, second := make(chan started, 1), make(chan started, 1)
	b.start(ctx, 0, "", first)
	b.waitPending(t, 1)
	b.start(ctx, 0, "", second)
	b.waitPending(t, 2)
	b.release()

	s1, s2 := <-first, <-second
	require.NoError(t, errors.Join(s1.err, s2.err))
	require.True(t, s1.ok && s2.ok)
	assert.Equal(t, b.transactionOf(t, s1.run.ID), b.transactionOf(t, s2.run.ID))
	runs := b.db.In(b.f.ws.ID).Runs()
	r1, err := runs.Get(ctx, s1.run.ID)
	require.NoError(t, err)
	assert.Equal(t, auxilia.EndedByNewerRun, r1.EndedBy)
	r2, err := runs.Get(ctx, s2.run.ID)
	require.NoError(t, err)
	assert.Equal(t, auxilia.RunActive, r2.Status)
}

// A start whose request ends while its record waits for a batch leaves
// with its context's error, and nothing of it is written; the others'
// batch goes on. So too when the start that left was the one waiting in
// line for the batch: another waits in its stead.
func TestAStartThatLeavesBeforeItsBatchWritesNothing(t *testing.T) {
	for _, leaderLeaves := range []bool{false, true} {
		t.Run(fmt.Sprintf("the writer leaves: %v", leaderLeaves), func(t *testing.T) {
			ctx := context.Background()
			b := newBusyThreads(t, 2)
			stays, leaves := make(chan started, 1), make(chan started, 1)
			gone, cancel := context.WithCancel(ctx)
			leaving := auxilia.NewID()
			if leaderLeaves {
				b.start(gone, 1, leaving, leaves)
				b.waitPending(t, 1)
				b.start(ctx, 0, "", stays)
			} else {
				b.start(ctx, 0, "", stays)
				b.waitPending(t, 1)
				b.start(gone, 1, leaving, leaves)
			}
			b.waitPending(t, 2)
			cancel()
			s := <-leaves
			require.ErrorIs(t, s.err, context.Canceled)
			b.waitPending(t, 1)
			b.release()

			kept := <-stays
			require.NoError(t, kept.err)
			require.True(t, kept.ok)
			_, err := b.db.In(b.f.ws.ID).Runs().Get(ctx, leaving)
			require.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "%v", err)
			earlier, err := b.db.In(b.f.ws.ID).Runs().Get(ctx, b.runs[1].ID)
			require.NoError(t, err)
			assert.Equal(t, auxilia.RunActive, earlier.Status)
		})
	}
}

// A batch that no start waits for any more is given up: a start whose
// request ends while its batch waits for a lock leaves at once, and the
// batch's statement is cancelled rather than left waiting.
func TestABatchNoStartWaitsForIsGivenUp(t *testing.T) {
	ctx := context.Background()
	b := newBusyThreads(t, 1)
	b.release()
	sqlDB, err := b.db.SQL()
	require.NoError(t, err)
	lock, err := sqlDB.BeginTx(ctx, nil)
	require.NoError(t, err)
	defer func() { _ = lock.Rollback() }()
	_, err = lock.Exec(`SELECT 1 FROM threads WHERE id = $1 FOR UPDATE`, b.threads[0].ID)
	require.NoError(t, err)
	waitingOnLock := func() bool {
		var n int
		require.NoError(t, sqlDB.QueryRow(`SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n))
		return n > 0
	}

	gone, cancel := context.WithCancel(ctx)
	out := make(chan started, 1)
	id := auxilia.NewID()
	b.start(gone, 0, id, out)
	require.Eventually(t, waitingOnLock, 5*time.Second, time.Millisecond, "the batch waits for the thread's row")
	cancel()
	select {
	case s := <-out:
		require.ErrorIs(t, s.err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("the start waited for its batch after its request ended")
	}
	require.Eventually(t, func() bool { return !waitingOnLock() }, 5*time.Second, time.Millisecond, "the batch is given up")
	require.NoError(t, lock.Rollback())
	_, err = b.db.In(b.f.ws.ID).Runs().Get(ctx, id)
	require.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "%v", err)
}

// The views of run starts that come at once go in one round trip, each
// reading its own thread's instance; a view that claims from a pool goes
// alone, as the claims of one batch would run one after the other.
func TestStartViewsAtOnceGoTogether(t *testing.T) {
	ctx := context.Background()
	b := newThreads(t, 2)
	require.NoError(t, b.db.Bindings().Put(ctx, b.f.agent.ID, b.f.sb.ID, nil, auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin}))
	sb, err := b.db.Sandboxes().Get(ctx, b.f.ws.ID, b.f.sb.ID)
	require.NoError(t, err)
	b.f.sb = sb
	readyPoolInstances(t, b.db, b.f, 1)
	b.holdLine(t)
	before, _ := b.db.Batches()

	type viewed struct {
		key  string
		view auxilia.StartView
		err  error
	}
	out := make(chan viewed, 4)
	threads := b.db.In(b.f.ws.ID).Threads()
	view := func(key string, claim *auxilia.PoolClaim) {
		go func() {
			v, err := threads.StartView(ctx, b.f.agent.ID, key, claim)
			out <- viewed{key, v, err}
		}()
	}
	keys := []string{b.threads[0].Key, b.threads[1].Key, "new-0"}
	for _, key := range keys {
		view(key, nil)
	}
	require.Eventually(t, func() bool { views, _ := b.db.Pending(); return views == len(keys) && b.db.Waiting() == 1 },
		5*time.Second, time.Millisecond)
	view("new-1", &auxilia.PoolClaim{SandboxID: sb.ID, Version: sb.Version, FreshAfter: time.Now().Add(-time.Hour)})
	require.Eventually(t, func() bool { return b.db.Waiting() == 2 }, 5*time.Second, time.Millisecond, "the claim waits in line alone")
	views, _ := b.db.Pending()
	assert.Equal(t, len(keys), views)
	b.release()

	for range len(keys) + 1 {
		v := <-out
		require.NoError(t, v.err, v.key)
		assert.Equal(t, b.f.agent.ID, v.view.Agent.ID)
		assert.Equal(t, sb.ID, v.view.Sandbox.ID)
		switch v.key {
		case "new-0":
			assert.False(t, v.view.Live)
			assert.False(t, v.view.Claim.Tried)
		case "new-1":
			assert.True(t, v.view.Claim.Tried)
			assert.NotNil(t, v.view.Claim.Instance, "the pool's instance")
		default:
			for i, thread := range b.threads {
				if v.key == thread.Key {
					require.True(t, v.view.Live, v.key)
					assert.Equal(t, b.runs[i].InstanceID, v.view.Instance.ID, "its own thread's instance")
				}
			}
		}
	}
	after, _ := b.db.Batches()
	assert.Equal(t, 1, after-before)
}

// A batch takes its turn in line as old as its oldest part, even one that
// joins it while it waits: it goes before a statement of a request that
// arrived after that part, though before the part that began the batch.
func TestABatchIsAsOldAsItsOldestPart(t *testing.T) {
	base := time.Now().Add(-time.Minute)
	b := newBusyThreads(t, 2)
	finished := make(chan string, 3)
	record := func(i int, at time.Time, name string) {
		out := make(chan started, 1)
		b.start(auxilia.Arrived(context.Background(), at), i, "", out)
		go func() {
			s := <-out
			assert.NoError(t, s.err)
			finished <- name
		}()
	}
	record(0, base.Add(10*time.Second), "batch")
	b.waitPending(t, 1)
	go func() {
		_, err := b.db.Workspaces().ByName(auxilia.Arrived(context.Background(), base.Add(5*time.Second)), "acme")
		assert.NoError(t, err)
		finished <- "read"
	}()
	require.Eventually(t, func() bool { return b.db.Waiting() == 2 }, 5*time.Second, time.Millisecond)
	record(1, base, "batch")
	b.waitPending(t, 2)
	b.release()
	assert.Equal(t, []string{"batch", "batch", "read"}, []string{<-finished, <-finished, <-finished})
}
