package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// PauseIdleOverQuota pauses the workspace's live instances that no call
// uses, as the provider's pause does: what an exhausted instance-hours
// quota does, as paused instances hold no compute. The warm pools'
// unclaimed instances go first, the longest ready first: they hold no one's
// work, and a run that claims one resumes it. Then the instances of
// threads idle for a minute or more, the longest idle first. It never ends
// an instance: one whose provider cannot pause runs on. Each pause is
// audited. It returns how many it paused.
func (s *Service) PauseIdleOverQuota(ctx context.Context, workspaceID string) (int, error) {
	now := s.opt.Clock()
	pooled, err := s.Pools.Running(ctx, workspaceID, reapBatch)
	if err != nil {
		return 0, err
	}
	paused := 0
	var errs []error
	for _, inst := range pooled {
		if ctx.Err() != nil {
			return paused, errors.Join(errs...)
		}
		ok, err := s.pausePooledOverQuota(ctx, inst, now)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			paused++
		}
	}
	threads, err := s.Jobs.IdleInWorkspace(ctx, workspaceID, now.Add(-shortestIdle), reapBatch)
	if err != nil {
		return paused, errors.Join(append(errs, err)...)
	}
	for _, thread := range threads {
		if ctx.Err() != nil {
			break
		}
		ok, err := s.pauseOverQuota(ctx, thread, now)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			paused++
		}
	}
	return paused, errors.Join(errs...)
}

// pausePooledOverQuota pauses one unclaimed pool instance, unless a thread
// claimed it meanwhile, and audits it.
func (s *Service) pausePooledOverQuota(ctx context.Context, inst auxilia.Instance, now time.Time) (bool, error) {
	client, sb, err := s.Sandboxes.RetainedClient(ctx, inst.SandboxID)
	if err != nil || !s.canPause(sb) {
		return false, err // cannot pause: it runs on, as a quota never ends an instance
	}
	marked, err := s.Pools.MarkPaused(ctx, inst.ID, now)
	if err != nil || !marked {
		return false, err // claimed meanwhile: its thread's run uses it
	}
	ok, err := s.pauseMarked(ctx, client, sb, inst)
	if !ok {
		return false, err
	}
	return true, s.Audit.Append(ctx, auxilia.AuditEntry{WorkspaceID: inst.WorkspaceID, TokenName: auxilia.QuotaActor,
		Action: "quota.pause", ResourceType: "quota", ResourceID: string(auxilia.QuotaInstanceHours), Outcome: auxilia.OutcomeSuccess,
		Detail: fmt.Sprintf("paused instance %s of the warm pool of sandbox %s, ready since %s and claimed by no thread: "+
			"the instance-hours quota is used up", inst.ID, sb.Name, inst.UpdatedAt.UTC().Format(time.RFC3339))})
}

// pauseOverQuota pauses one idle thread's instance, unless it was active
// meanwhile, and audits it.
func (s *Service) pauseOverQuota(ctx context.Context, thread auxilia.Thread, now time.Time) (bool, error) {
	inst := *thread.Instance
	lastActive := thread.CreatedAt
	if thread.LastActivityAt != nil {
		lastActive = *thread.LastActivityAt
	}
	client, sb, err := s.Sandboxes.RetainedClient(ctx, inst.SandboxID)
	if err != nil || !s.canPause(sb) {
		return false, err // cannot pause: it runs on, as a quota never ends an instance
	}
	marked, err := s.Instances(inst.WorkspaceID).MarkPaused(ctx, inst.ID, lastActive.Add(time.Microsecond).UTC(), now)
	if err != nil || !marked {
		return false, err // active again, or changed meanwhile
	}
	ok, err := s.pauseMarked(ctx, client, sb, inst)
	if !ok {
		return false, err
	}
	return true, s.Audit.Append(ctx, auxilia.AuditEntry{WorkspaceID: inst.WorkspaceID, TokenName: auxilia.QuotaActor,
		Action: "quota.pause", ResourceType: "quota", ResourceID: string(auxilia.QuotaInstanceHours), Outcome: auxilia.OutcomeSuccess,
		Detail: fmt.Sprintf("paused instance %s of thread %s (sandbox %s), idle since %s: the instance-hours quota is used up",
			inst.ID, thread.Key, sb.Name, lastActive.UTC().Format(time.RFC3339))})
}

// pauseMarked has the provider pause an instance marked paused. An instance
// the provider no longer has is forgotten; one it did not pause (it cannot,
// or it failed) is unmarked and runs on. A run that resumed the instance
// while it was being paused has it resumed again.
func (s *Service) pauseMarked(ctx context.Context, client provider.Client, sb auxilia.Sandbox, inst auxilia.Instance) (bool, error) {
	pinst, err := s.providerInstance(inst)
	if err == nil {
		err = pause(ctx, client, pinst)
	}
	switch {
	case errors.Is(err, provider.ErrUnsupported):
		return false, s.Instances(inst.WorkspaceID).MarkResumed(ctx, inst.ID) // it runs on, as a quota never ends an instance (its provider said it could pause)
	case errors.Is(err, provider.ErrGone):
		return false, s.Instances(inst.WorkspaceID).MarkDestroyed(ctx, inst.ID)
	case err != nil:
		_ = s.Instances(inst.WorkspaceID).MarkResumed(ctx, inst.ID)
		return false, err
	}
	s.Metrics.InstanceChanged(sb.Provider, "paused")
	s.resumeIfWanted(ctx, client, inst, pinst)
	return true, nil
}

// canPause reports whether the sandbox's provider pauses instances. It is
// asked before an instance is marked paused: marking and unmarking one the
// provider cannot pause would meter it paused for a moment and, for a pool
// instance, make it newly ready, on every pass.
func (s *Service) canPause(sb auxilia.Sandbox) bool {
	d, err := s.Sandboxes.Describe(sb)
	return err == nil && d.Capabilities.Has(provider.PauseResume)
}
