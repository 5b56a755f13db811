package run

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

var timeSince = time.Since

// Reaping bounds: how much one pass does, and how long destroyed instances are remembered.
const (
	reapBatch         = 200
	keepDestroyedFor  = 24 * time.Hour
	reapProviderLimit = 2 * time.Minute
	reapParallel      = 8
)

// ReapReport says what a reaper pass did.
type ReapReport struct {
	Expired   int // runs ended for idleness
	Abandoned int // creations whose creator died
	Destroyed int // instances destroyed at their provider
	Failed    int // instances whose provider did not let them be destroyed (tried again next pass)
	Forgotten int // kept files deleted at their provider (past max_kept_days, replaced, or their thread gone)
}

// Reap is one pass of the reaper: it ends idle runs (saving their files),
// releases instances whose creator died, destroys released instances
// (paused ones too) at their provider with their sandbox's retained
// credentials (a deleted sandbox's too), and deletes kept files past their
// sandbox's max_kept_days, replaced by newer, or whose thread is gone. Nothing is left at a provider that no thread uses.
func (s *Service) Reap(ctx context.Context) (ReapReport, error) {
	var rep ReapReport
	idle, err := s.Jobs.Idle(ctx, time.Now().Add(-s.opt.IdleTimeout), reapBatch)
	if err != nil {
		return rep, err
	}
	for _, r := range idle {
		if ended, err := s.Runs(r.WorkspaceID).End(ctx, r.ID, auxilia.RunExpired); err == nil && ended {
			rep.Expired++
			_ = s.persist(ctx, r)
		}
	}
	n, err := s.Jobs.ExpireLeases(ctx, time.Now())
	if err != nil {
		return rep, err
	}
	rep.Abandoned = int(n)
	released, err := s.Jobs.Reapable(ctx, reapBatch)
	if err != nil {
		return rep, err
	}
	// Destroy several at once: one slow provider must not hold up the rest.
	var mu sync.Mutex
	count := func(ok bool, done *int) {
		mu.Lock()
		defer mu.Unlock()
		if ok {
			*done++
		} else {
			rep.Failed++
		}
	}
	spread := jobs.Spread{Parallel: reapParallel, Deadline: reapProviderLimit}
	jobs.Each(ctx, released, spread, func(i auxilia.Instance) string { return i.WorkspaceID },
		func(ctx context.Context, inst auxilia.Instance) { count(s.destroy(ctx, inst), &rep.Destroyed) })
	forgettable, err := s.Jobs.Forgettable(ctx, s.opt.Clock(), reapBatch)
	if err != nil {
		return rep, err
	}
	jobs.Each(ctx, forgettable, spread, func(k auxilia.KeptFiles) string { return k.WorkspaceID },
		func(ctx context.Context, k auxilia.KeptFiles) { count(s.forget(ctx, k), &rep.Forgotten) })
	_, err = s.Jobs.PurgeDestroyed(ctx, time.Now().Add(-keepDestroyedFor))
	return rep, err
}

// destroy destroys an instance at its provider and records it; it reports
// whether the instance is gone. An instance whose creator died before
// learning its id is looked for by its labels, where the provider can.
func (s *Service) destroy(ctx context.Context, inst auxilia.Instance) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reapProviderLimit)
	defer cancel()
	client, sb, err := s.Sandboxes.RetainedClient(ctx, inst.SandboxID)
	if err != nil {
		return false
	}
	pinst, err := s.providerInstance(inst)
	if err != nil {
		return false
	}
	if pinst.ID == "" {
		found, ok, err := s.findCreated(ctx, client, inst)
		if err != nil {
			return false
		}
		if !ok { // the provider never made it
			return s.Instances(inst.WorkspaceID).MarkDestroyed(ctx, inst.ID) == nil
		}
		pinst = found
	}
	if err := client.Destroy(ctx, pinst); err != nil && !errors.Is(err, provider.ErrGone) {
		return false
	}
	s.Metrics.InstanceChanged(sb.Provider, "destroyed")
	return s.Instances(inst.WorkspaceID).MarkDestroyed(ctx, inst.ID) == nil
}

// findCreated asks the provider for an instance created under our id, when it can be asked.
func (s *Service) findCreated(ctx context.Context, client provider.Client, inst auxilia.Instance) (provider.Instance, bool, error) {
	f, ok := client.(provider.Finder)
	if !ok {
		return provider.Instance{}, false, nil
	}
	found, ok, err := f.FindCreated(ctx, provider.Labels{Workspace: inst.WorkspaceID, Sandbox: inst.SandboxID,
		Thread: inst.ThreadID, Instance: inst.ID})
	if errors.Is(err, provider.ErrUnsupported) {
		return provider.Instance{}, false, nil
	}
	return found, ok, err
}

// Purger forgets what the reaper has finished with.
type Purger interface {
	Purge(ctx context.Context) error
}

// ReaperJob is the reaper as a background job: a pass every interval, then
// a purge of what nothing needs any more.
func (s *Service) ReaperJob(every time.Duration, purge Purger, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: "reaper", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		rep, err := s.Reap(ctx)
		log.Debug("reaper pass", "report", rep)
		if rep != (ReapReport{}) {
			log.Info("reaper pass", "expired_runs", rep.Expired, "abandoned_creations", rep.Abandoned,
				"destroyed_instances", rep.Destroyed, "forgotten_kept_files", rep.Forgotten, "failed", rep.Failed)
		}
		if err != nil {
			return err
		}
		return purge.Purge(ctx)
	}}
}
