package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// How warm pools are kept: how many sandboxes a pass reads at a time, how
// many creates run at once, and how failing creates are bounded.
const (
	poolPage              = 200
	poolParallel          = 16 // creates at once for one sandbox
	poolSandboxesParallel = 8  // sandboxes kept at once
	PoolFailureLimit      = 5  // failed creates in a row that stop a pool
	poolBackoffBase       = 10 * time.Second
	poolBackoffCap        = 10 * time.Minute
)

// PoolReport says what a pass of the pool keeper did.
type PoolReport struct {
	Created int // instances made ready
	Failed  int // creates that failed
	Retired int // instances released: old config, idle too long, or beyond the size
}

// PoolJob keeps the warm pools as a background job, one replica at a time.
func (s *Service) PoolJob(log *slog.Logger) jobs.Job {
	every := s.opt.PoolEvery
	return jobs.Job{Name: "pools", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		rep, err := s.KeepPools(ctx)
		if rep != (PoolReport{}) {
			log.Info("pool pass", "created", rep.Created, "failed_creates", rep.Failed, "retired", rep.Retired)
		}
		return err
	}}
}

// KeepPools is one pass over every sandbox: it retires the pool instances
// that may no longer be handed out (made from an older version of the
// sandbox, ready for longer than max_idle_minutes, or beyond size) for the
// reaper to destroy, and creates what the pool lacks, unless its creates
// are failing and it waits, or stopped. The sandboxes' pools are kept
// beside one another, each within its own deadline and workspaces sharing
// the slots fairly: a provider that never answers holds up only its own
// sandbox's pool.
func (s *Service) KeepPools(ctx context.Context) (PoolReport, error) {
	var all []auxilia.Sandbox
	for after := ""; ; {
		page, err := s.Pools.Sandboxes(ctx, after, poolPage)
		if err != nil {
			return PoolReport{}, err
		}
		all = append(all, page...)
		if len(page) < poolPage {
			break
		}
		after = page[len(page)-1].ID
	}
	var (
		mu    sync.Mutex
		rep   PoolReport
		first error // one sandbox's failure does not hold up the others' pools
	)
	spread := jobs.Spread{Parallel: poolSandboxesParallel, Deadline: s.poolDeadline()}
	jobs.Each(ctx, all, spread, sandboxWorkspace, func(ctx context.Context, sb auxilia.Sandbox) {
		var one PoolReport
		err := s.keepPool(ctx, sb, &one)
		mu.Lock()
		defer mu.Unlock()
		rep.Created, rep.Failed, rep.Retired = rep.Created+one.Created, rep.Failed+one.Failed, rep.Retired+one.Retired
		if err != nil && first == nil {
			first = fmt.Errorf("pool of sandbox %s: %w", sb.ID, err)
		}
	})
	if err := s.removeDeletedPools(ctx); err != nil && first == nil {
		first = err
	}
	return rep, first
}

// poolDeadline bounds one sandbox's share of a pass: its creates, each
// within the create lease, and the bookkeeping around them.
func (s *Service) poolDeadline() time.Duration { return s.opt.CreateLease + time.Minute }

func sandboxWorkspace(sb auxilia.Sandbox) string { return sb.WorkspaceID }

func (s *Service) keepPool(ctx context.Context, sb auxilia.Sandbox, rep *PoolReport) error {
	cfg, err := s.Sandboxes.Config(sb)
	if err != nil {
		return err
	}
	pool := cfg.WarmPool()
	if s.keptByProvider(sb) {
		return s.keepProviderPool(ctx, sb, pool)
	}
	fresh := freshAfter(pool, time.Now())
	retired, err := s.Pools.Retire(ctx, sb, fresh, pool.Size)
	if err != nil {
		return err
	}
	rep.Retired += int(retired)
	if pool.Size == 0 {
		if retired > 0 {
			s.Metrics.PoolObserved(sb.ID, sb.Provider, 0, 0)
		}
		return nil
	}
	ready, creating, err := s.Pools.Count(ctx, sb, fresh)
	if err != nil {
		return err
	}
	defer func() { s.Metrics.PoolObserved(sb.ID, sb.Provider, pool.Size, ready) }()
	missing := pool.Size - ready - creating
	if missing <= 0 {
		return nil
	}
	f, err := s.poolFailures(ctx, sb)
	if err != nil || f.Waiting(time.Now()) {
		return err
	}
	if room, _, limited, err := s.instanceRoom(ctx, sb.WorkspaceID); err != nil || (limited && room == 0) {
		return err // the quota is used up: the pool waits, and says why (PoolStatus)
	} else if limited {
		missing = min(missing, room)
	}
	client, current, err := s.Sandboxes.RetainedClient(ctx, sb.ID)
	if err != nil || current.Version != sb.Version {
		return err // edited meanwhile: the next pass retires and refills
	}
	for missing > 0 {
		n := min(missing, poolParallel)
		made, refused, failure := s.fill(ctx, sb, client, cfg, n)
		rep.Created, ready, missing = rep.Created+made, ready+made, missing-n
		if refused > 0 && failure == nil {
			break // the quota was used up meanwhile (another sandbox's pool, a run): no failure of this pool
		}
		if failure != nil {
			rep.Failed += n - made - refused
			return s.Pools.SetFailures(ctx, failed(f, failure, time.Now()))
		}
	}
	if f.Count > 0 {
		return s.Pools.SetFailures(ctx, auxilia.PoolFailures{SandboxID: sb.ID, Version: sb.Version})
	}
	return nil
}

// fill creates n pool instances at once; it returns how many it made, how
// many the workspace's quota refused (no failure: nothing was asked of the
// provider), and the last failure.
func (s *Service) fill(ctx context.Context, sb auxilia.Sandbox, client provider.Client, cfg provider.Config, n int) (made, refused int, failure error) {
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.createPooled(ctx, sb, client, cfg)
			mu.Lock()
			defer mu.Unlock()
			if auxilia.IsCode(err, auxilia.CodeQuotaExceeded) {
				refused++
				return
			}
			if err != nil {
				failure = err
				s.Metrics.PoolCreateFailed(sb.Provider)
				return
			}
			made++
		}()
	}
	wg.Wait()
	return made, refused, failure
}

// createPooled makes one pool instance: labelled with the sandbox and our
// id for it, but no thread yet.
func (s *Service) createPooled(ctx context.Context, sb auxilia.Sandbox, client provider.Client, cfg provider.Config) error {
	inst, err := s.Pools.Add(ctx, sb, time.Now().Add(s.opt.CreateLease))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opt.CreateLease)
	defer cancel()
	if _, err = s.build(ctx, sb, client, cfg, inst, provider.Labels{Workspace: sb.WorkspaceID, Sandbox: sb.ID, Instance: inst.ID}, nil, Progress{}); err != nil {
		return err
	}
	s.empty.filled(sb)
	s.Metrics.InstanceChanged(sb.Provider, "created")
	return nil
}

// poolFailures are the pool's failures that still count for the sandbox
// as it is (currentFailures), stored as such.
func (s *Service) poolFailures(ctx context.Context, sb auxilia.Sandbox) (auxilia.PoolFailures, error) {
	stored, err := s.Pools.Failures(ctx, sb.ID)
	if err != nil {
		return stored, err
	}
	f := currentFailures(stored, sb)
	if f != stored {
		err = s.Pools.SetFailures(ctx, f)
	}
	return f, err
}

// currentFailures are the failures that still count for the sandbox as it
// is: none once it was edited; one last try once it was probed healthy
// after the pool stopped (a failure then stops it again at once).
func currentFailures(f auxilia.PoolFailures, sb auxilia.Sandbox) auxilia.PoolFailures {
	switch {
	case f.Version != sb.Version:
		return auxilia.PoolFailures{SandboxID: sb.ID, Version: sb.Version}
	case f.StoppedAt != nil && sb.Health.Status == auxilia.HealthOK && sb.Health.CheckedAt != nil &&
		sb.Health.CheckedAt.After(*f.StoppedAt):
		f.Count, f.StoppedAt, f.RetryAt = PoolFailureLimit-1, nil, nil
	}
	return f
}

// failed adds a failed attempt: the pool waits twice as long each time
// (capped), and stops at the limit.
func failed(f auxilia.PoolFailures, err error, now time.Time) auxilia.PoolFailures {
	f.Count++
	f.LastError = poolErrorText(err)
	if f.Count >= PoolFailureLimit {
		f.StoppedAt, f.RetryAt = &now, nil
		return f
	}
	retry := now.Add(poolBackoff(f.Count))
	f.RetryAt = &retry
	return f
}

// poolBackoff is the wait after the nth failure in a row.
func poolBackoff(n int) time.Duration {
	wait := poolBackoffBase
	for i := 1; i < n && wait < poolBackoffCap; i++ {
		wait *= 2
	}
	return min(wait, poolBackoffCap)
}

func failingDetail(f auxilia.PoolFailures) string {
	return fmt.Sprintf("%d create(s) in a row failed, the last with: %s", f.Count, f.LastError)
}

func stoppedDetail(f auxilia.PoolFailures) string {
	return fmt.Sprintf("Stopped after %d creates in a row failed, the last with: %s. Edit the sandbox, or probe it healthy, to try again.",
		f.Count, f.LastError)
}

// poolErrorText words a failed create for the pool's status: the problem a
// run would have answered (the provider's words, scrubbed), or, for any
// other failure, nothing more than that it was internal.
func poolErrorText(err error) string {
	var ae *auxilia.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return reasonText(err)
}
