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

// shortestIdle is the least a thread is idle before the idle job looks at
// it: idle_minutes counts in minutes.
const shortestIdle = time.Minute

// IdleReport says what an idle pass did.
type IdleReport struct {
	Kept     int // threads whose files were kept
	Paused   int // instances paused
	Released int // instances let go once their files were kept (the provider cannot pause)
	Failed   int // threads whose provider refused (tried again next pass)
}

// Idle is one pass of the idle job over the threads whose live instance has
// been idle (no run start, no tool call) for a minute or more, by their
// sandbox's settings: with keep_files always, the files are kept once the
// thread is idle for KeepAfterIdle (before the provider can expire the
// instance) or when it pauses, unless kept since the last activity; past
// idle_minutes the instance is paused, or, where the provider cannot pause,
// released to the reaper now that its files are kept.
func (s *Service) Idle(ctx context.Context) (IdleReport, error) {
	var rep IdleReport
	now := s.opt.Clock()
	type opened struct {
		client provider.Client
		sb     auxilia.Sandbox
		lc     provider.Lifecycle
		err    error
	}
	sandboxes := map[string]opened{}
	for after := ""; ; {
		page, err := s.Jobs.IdlePage(ctx, after, now.Add(-shortestIdle), reapBatch)
		if err != nil {
			return rep, err
		}
		var due []idleWork
		for _, thread := range page {
			after = thread.ID
			o, seen := sandboxes[thread.Instance.SandboxID]
			if !seen {
				o.client, o.sb, o.err = s.Sandboxes.RetainedClient(ctx, thread.Instance.SandboxID)
				if o.err == nil {
					var cfg provider.Config
					if cfg, o.err = s.Sandboxes.Config(o.sb); o.err == nil {
						o.lc = provider.LifecycleOf(cfg)
					}
				}
				sandboxes[thread.Instance.SandboxID] = o
			}
			if o.err != nil {
				continue
			}
			due = append(due, idleWork{client: o.client, sb: o.sb, lc: o.lc, thread: thread})
		}
		// The threads beside one another, each within its own deadline,
		// workspaces sharing the slots: one provider that never answers
		// holds up its own threads only.
		var mu sync.Mutex
		jobs.Each(ctx, due, jobs.Spread{Parallel: reapParallel, Deadline: 2 * reapProviderLimit},
			func(w idleWork) string { return w.sb.WorkspaceID },
			func(ctx context.Context, w idleWork) {
				var one IdleReport
				s.idleThread(ctx, w.client, w.sb, w.lc, w.thread, now, &one)
				mu.Lock()
				defer mu.Unlock()
				rep.Kept, rep.Paused = rep.Kept+one.Kept, rep.Paused+one.Paused
				rep.Released, rep.Failed = rep.Released+one.Released, rep.Failed+one.Failed
			})
		if len(page) < reapBatch {
			return rep, nil
		}
	}
}

// idleWork is one idle thread with its sandbox's client and lifecycle.
type idleWork struct {
	client provider.Client
	sb     auxilia.Sandbox
	lc     provider.Lifecycle
	thread auxilia.Thread
}

// idleThread keeps and pauses one idle thread's instance, as its settings say.
func (s *Service) idleThread(ctx context.Context, client provider.Client, sb auxilia.Sandbox, lc provider.Lifecycle, thread auxilia.Thread, now time.Time, rep *IdleReport) {
	lastActive := thread.CreatedAt
	if thread.LastActivityAt != nil {
		lastActive = *thread.LastActivityAt
	}
	idleFor := now.Sub(lastActive)
	pauseDue := lc.IdleAfter > 0 && idleFor >= lc.IdleAfter
	keptSince := thread.Kept != nil && thread.Kept.SandboxID == sb.ID && !thread.Kept.At.Before(lastActive)
	if lc.KeepFiles && !keptSince && (pauseDue || idleFor >= s.opt.KeepAfterIdle) {
		err := s.keepFiles(ctx, client, thread, func() auxilia.KeptFiles {
			return auxilia.KeptFiles{WorkspaceID: sb.WorkspaceID, SandboxID: sb.ID, ThreadID: thread.ID, ForgetAfter: now.Add(lc.KeptFor)}
		})
		if err != nil {
			rep.Failed++
			return // nothing is paused or let go whose files were to be kept and are not
		}
		rep.Kept++
	}
	if !pauseDue {
		return
	}
	inst := *thread.Instance
	marked, err := s.Instances(inst.WorkspaceID).MarkPaused(ctx, inst.ID, lastActive.Add(time.Microsecond).UTC(), now)
	if err != nil || !marked {
		return // active again, or changed meanwhile: the next pass looks again
	}
	pinst, err := s.providerInstance(inst)
	if err == nil {
		err = pause(ctx, client, pinst)
	}
	switch {
	case errors.Is(err, provider.ErrUnsupported) && lc.KeepFiles:
		// Its files are kept: the instance goes, and the next run restores them.
		if s.Instances(inst.WorkspaceID).Release(ctx, inst.ID) == nil {
			rep.Released++
		}
	case errors.Is(err, provider.ErrGone):
		_ = s.Instances(inst.WorkspaceID).MarkDestroyed(ctx, inst.ID)
	case err != nil:
		_ = s.Instances(inst.WorkspaceID).MarkResumed(ctx, inst.ID)
		rep.Failed++
	default:
		rep.Paused++
		s.Metrics.InstanceChanged(sb.Provider, "paused")
		s.resumeIfWanted(ctx, client, inst, pinst)
	}
}

// pause pauses an instance, where its client can.
func pause(ctx context.Context, client provider.Client, inst provider.Instance) error {
	p, ok := client.(provider.Pauser)
	if !ok {
		return provider.Errorf(provider.ErrUnsupported, provider.ProviderOf(client), "pause", "instances cannot be paused")
	}
	return p.Pause(ctx, inst)
}

// resumeIfWanted resumes an instance that a run resumed while it was being
// paused: the run found it marked paused and reconnected it before the
// pause reached the provider.
func (s *Service) resumeIfWanted(ctx context.Context, client provider.Client, was auxilia.Instance, pinst provider.Instance) {
	inst, err := s.Instances(was.WorkspaceID).Get(ctx, was.ID)
	if err == nil && inst.Status == auxilia.InstanceLive && inst.PausedAt == nil {
		_, _ = client.Reconnect(ctx, pinst)
	}
}

// IdleJob is the idle pass as a background job.
func (s *Service) IdleJob(every time.Duration, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: "idle", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		rep, err := s.Idle(ctx)
		if rep != (IdleReport{}) {
			log.Info("idle pass", "kept", rep.Kept, "paused", rep.Paused, "released", rep.Released, "failed", rep.Failed)
		}
		return err
	}}
}
