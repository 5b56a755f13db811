// Package jobs runs the server's background work (the reaper, the health
// probes): each job again and again on its interval, with jitter, in one
// replica at a time, never overlapping itself, counted in the metrics.
package jobs

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Job is a piece of background work done every so often.
type Job struct {
	// Name names the job's lock, its log lines and its metrics.
	Name string
	// Every is the time from the start of one pass to the start of the
	// next; a pass that takes longer is followed by the next at once.
	Every time.Duration
	// Jitter moves each wait by up to this much either way, so that the
	// replicas' passes drift apart (at most Every).
	Jitter time.Duration
	// Run is one pass.
	Run func(ctx context.Context) error
}

// Locker runs work in one process at a time across every replica.
type Locker interface {
	WithTryLock(ctx context.Context, name string, fn func(ctx context.Context) error) (bool, error)
}

// Runner runs jobs in the background until stopped. Every pass takes the
// job's lock first: the replica that holds it leads that pass, and the
// others skip it, so each job has one leader at a time while the jobs may
// be led by different replicas.
type Runner struct {
	lock    Locker
	metrics auxilia.Metrics
	log     *slog.Logger
	stop    context.CancelFunc
	done    chan struct{}
}

// Start runs the jobs until Stop (or until ctx ends), each first at once.
// Metrics and log may be nil.
func Start(ctx context.Context, lock Locker, m auxilia.Metrics, log *slog.Logger, jobs ...Job) *Runner {
	if m == nil {
		m = auxilia.NoMetrics{}
	}
	if log == nil {
		log = slog.Default()
	}
	ctx, stop := context.WithCancel(ctx)
	r := &Runner{lock: lock, metrics: m, log: log, stop: stop, done: make(chan struct{})}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.loop(ctx, j)
		}()
	}
	go func() {
		wg.Wait()
		close(r.done)
	}()
	return r
}

// Stop starts no more passes, ends the context of those under way and waits
// up to grace for them to return. It reports whether they all did.
func (r *Runner) Stop(grace time.Duration) bool {
	r.stop()
	select {
	case <-r.done:
		return true
	case <-time.After(grace):
		r.log.Warn("background jobs still running at shutdown", "grace", grace.String())
		return false
	}
}

func (r *Runner) loop(ctx context.Context, j Job) {
	wait := time.NewTimer(0)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		started := time.Now()
		r.pass(ctx, j)
		wait.Reset(max(pause(j.Every, j.Jitter)-time.Since(started), 0))
	}
}

// pass runs the job once if this replica gets its lock, and records how it went.
func (r *Runner) pass(ctx context.Context, j Job) {
	started := time.Now()
	ran, err := r.lock.WithTryLock(ctx, j.Name, j.Run)
	if err != nil && ctx.Err() != nil {
		return // cut short by Stop: neither a success nor a failure
	}
	took := time.Since(started)
	switch {
	case err != nil:
		r.metrics.JobRan(j.Name, "failed", took)
		r.log.Warn("background job failed", "job", j.Name, "error", err.Error(), "ran", ran)
	case ran:
		r.metrics.JobRan(j.Name, "ok", took)
	default:
		r.metrics.JobRan(j.Name, "skipped", took)
	}
}

// pause is every moved by a random amount within jitter either way.
func pause(every, jitter time.Duration) time.Duration {
	jitter = min(jitter, every)
	if jitter <= 0 {
		return every
	}
	return every - jitter + rand.N(2*jitter+1)
}
