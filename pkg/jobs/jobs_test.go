package jobs_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// outcomes counts the passes the runner reports, by job and outcome.
type outcomes struct {
	auxilia.NoMetrics
	mu    sync.Mutex
	count map[string]int
}

func (o *outcomes) JobRan(job, outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.count == nil {
		o.count = map[string]int{}
	}
	o.count[job+" "+outcome]++
}

func (o *outcomes) of(job, outcome string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.count[job+" "+outcome]
}

// busy follows how many passes of a job run at once, and the most ever.
type busy struct {
	now, most atomic.Int32
	passes    atomic.Int32
}

func (b *busy) enter() {
	b.passes.Add(1)
	n := b.now.Add(1)
	for m := b.most.Load(); n > m && !b.most.CompareAndSwap(m, n); m = b.most.Load() {
	}
}

func (b *busy) leave() { b.now.Add(-1) }

// replicas opens two handles on one database, as two servers would: on
// Postgres two connection pools; the embedded database serves one process,
// so there it is one handle twice.
func replicas(t *testing.T, d store.Dialect) (*store.DB, *store.DB) {
	if d == store.SQLite {
		db := storetest.Open(t, d)
		return db, db
	}
	url := storetest.NewPostgresDatabase(t)
	open := func() *store.DB {
		db, err := store.Open(context.Background(), url, "")
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return db
	}
	return open(), open()
}

func eachDialect(t *testing.T, fn func(t *testing.T, d store.Dialect)) {
	for _, d := range []store.Dialect{store.Postgres, store.SQLite} {
		t.Run(string(d), func(t *testing.T) { fn(t, d) })
	}
}

// Two replicas run the same two jobs: a job runs in one of them at a time,
// while the two jobs run at once, each led by whichever replica got it.
func TestOneLeaderPerJobAcrossReplicas(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		first, second := replicas(t, d)
		var inJob [2]busy
		var inAny busy
		job := func(i int) jobs.Job {
			return jobs.Job{Name: []string{"sweep", "probe"}[i], Every: 5 * time.Millisecond, Run: func(ctx context.Context) error {
				inJob[i].enter()
				inAny.enter()
				defer inJob[i].leave()
				defer inAny.leave()
				time.Sleep(20 * time.Millisecond)
				return nil
			}}
		}
		var seen [2]outcomes
		runners := []*jobs.Runner{
			jobs.Start(context.Background(), first, &seen[0], quiet, job(0), job(1)),
			jobs.Start(context.Background(), second, &seen[1], quiet, job(0), job(1)),
		}
		skipped := func() int {
			n := 0
			for i := range seen {
				n += seen[i].of("sweep", "skipped") + seen[i].of("probe", "skipped")
			}
			return n
		}
		// A loaded machine may take a while to open the pools' first
		// connections: wait for the passes rather than for a fixed time.
		ranEnough := func() bool {
			return inJob[0].passes.Load() > 5 && inJob[1].passes.Load() > 5 && inAny.most.Load() == 2 && skipped() > 0
		}
		assert.Eventually(t, ranEnough, 20*time.Second, 10*time.Millisecond)
		for _, r := range runners {
			require.True(t, r.Stop(5*time.Second))
		}

		for i := range inJob {
			assert.Greater(t, inJob[i].passes.Load(), int32(5), "the job ran again and again")
			assert.Equal(t, int32(1), inJob[i].most.Load(), "never in two replicas at once")
		}
		assert.Equal(t, int32(2), inAny.most.Load(), "each job has a leader of its own: both ran at once")
		assert.Positive(t, skipped(), "a replica skips a pass another one leads")
		assert.Equal(t, int(inJob[0].passes.Load()), seen[0].of("sweep", "ok")+seen[1].of("sweep", "ok"),
			"every pass that ran is counted once")
	})
}

// Passes start every interval, moved by the jitter either way, and a pass
// that overruns its interval is followed at once, never overlapped.
func TestIntervalAndJitter(t *testing.T) {
	db := storetest.Open(t, store.SQLite)
	starts := func(every, jitter, took time.Duration, passes int) ([]time.Duration, *busy) {
		var (
			mu    sync.Mutex
			at    []time.Time
			b     busy
			ended = make(chan struct{})
		)
		r := jobs.Start(context.Background(), db, nil, quiet, jobs.Job{Name: "tick", Every: every, Jitter: jitter,
			Run: func(ctx context.Context) error {
				b.enter()
				defer b.leave()
				mu.Lock()
				at = append(at, time.Now())
				if len(at) == passes {
					close(ended)
				}
				mu.Unlock()
				time.Sleep(took)
				return nil
			}})
		select {
		case <-ended:
		case <-time.After(30 * time.Second):
			t.Fatal("the passes did not come")
		}
		require.True(t, r.Stop(5*time.Second))
		var gaps []time.Duration
		for i := 1; i < passes; i++ {
			gaps = append(gaps, at[i].Sub(at[i-1]))
		}
		return gaps, &b
	}

	// A pass is timed from its start, its lock taken after: allow a little for that.
	const slack = time.Millisecond
	gaps, _ := starts(30*time.Millisecond, 0, 0, 6)
	for _, g := range gaps {
		assert.GreaterOrEqual(t, g, 30*time.Millisecond-slack, "without jitter, a pass every interval")
	}

	gaps, _ = starts(30*time.Millisecond, 15*time.Millisecond, 0, 16)
	early := 0
	for _, g := range gaps {
		assert.GreaterOrEqual(t, g, 15*time.Millisecond-slack, "never earlier than the jitter allows")
		if g < 30*time.Millisecond {
			early++
		}
	}
	assert.Positive(t, early, "the jitter moves passes earlier too: %v", gaps)

	gaps, b := starts(10*time.Millisecond, 0, 40*time.Millisecond, 4)
	assert.Equal(t, int32(1), b.most.Load(), "a long pass is never overlapped")
	for _, g := range gaps {
		assert.GreaterOrEqual(t, g, 40*time.Millisecond)
		assert.Less(t, g, 400*time.Millisecond, "the next pass follows an overrun at once")
	}
}

// Stop ends the passes under way through their context, starts no more,
// and leaves the job's lock free for another replica at once.
func TestStop(t *testing.T) {
	eachDialect(t, func(t *testing.T, d store.Dialect) {
		first, second := replicas(t, d)
		var passes atomic.Int32
		started := make(chan struct{}, 1)
		r := jobs.Start(context.Background(), first, nil, quiet, jobs.Job{Name: "reaper", Every: time.Millisecond,
			Run: func(ctx context.Context) error {
				passes.Add(1)
				started <- struct{}{}
				<-ctx.Done() // holds the job until stopped
				return ctx.Err()
			}})
		<-started
		stopped := time.Now()
		require.True(t, r.Stop(5*time.Second), "the pass under way ended with its context")
		assert.Less(t, time.Since(stopped), time.Second)
		after := passes.Load()
		time.Sleep(50 * time.Millisecond)
		assert.Equal(t, after, passes.Load(), "no pass starts once stopped")

		var seen outcomes
		took := make(chan struct{})
		var once sync.Once
		next := jobs.Start(context.Background(), second, &seen, quiet, jobs.Job{Name: "reaper", Every: 10 * time.Millisecond,
			Run: func(ctx context.Context) error {
				once.Do(func() { close(took) })
				return nil
			}})
		defer next.Stop(time.Second)
		select {
		case <-took:
		case <-time.After(2 * time.Second):
			t.Fatalf("the stopped replica still holds the job's lock (%d passes skipped)", seen.of("reaper", "skipped"))
		}
	})
}

// A pass that ignores its context outlives the grace Stop gives it, and Stop says so.
func TestStopGivesUpAfterItsGrace(t *testing.T) {
	db := storetest.Open(t, store.SQLite)
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	r := jobs.Start(context.Background(), db, nil, quiet, jobs.Job{Name: "stubborn", Every: time.Hour,
		Run: func(ctx context.Context) error {
			close(started)
			<-release
			return nil
		}})
	<-started
	assert.False(t, r.Stop(50*time.Millisecond))
}

// A failing pass is counted as failed and the job goes on.
func TestFailuresAreCountedAndTheJobGoesOn(t *testing.T) {
	db := storetest.Open(t, store.SQLite)
	var seen outcomes
	var n atomic.Int32
	r := jobs.Start(context.Background(), db, &seen, quiet, jobs.Job{Name: "flaky", Every: time.Millisecond,
		Run: func(ctx context.Context) error {
			if n.Add(1)%2 == 1 {
				return errors.New("the provider did not answer")
			}
			return nil
		}})
	require.Eventually(t, func() bool { return seen.of("flaky", "ok") >= 3 }, 5*time.Second, time.Millisecond)
	r.Stop(time.Second)
	assert.GreaterOrEqual(t, seen.of("flaky", "failed"), 3)
}
