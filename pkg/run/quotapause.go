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
// uses (their thread idle for a minute or more), the longest idle first,
// as the provider's pause does: what an exhausted instance-hours quota
// does, as paused instances hold no compute. It never ends an instance:
// one whose provider cannot pause runs on. Each pause is audited. It
// returns how many it paused.
func (s *Service) PauseIdleOverQuota(ctx context.Context, workspaceID string) (int, error) {
	now := s.opt.Clock()
	threads, err := s.Jobs.IdleInWorkspace(ctx, workspaceID, now.Add(-shortestIdle), reapBatch)
	if err != nil {
		return 0, err
	}
	paused := 0
	var errs []error
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

// pauseOverQuota pauses one idle thread's instance, unless it was active
// meanwhile, and audits it.
func (s *Service) pauseOverQuota(ctx context.Context, thread auxilia.Thread, now time.Time) (bool, error) {
	inst := *thread.Instance
	lastActive := thread.CreatedAt
	if thread.LastActivityAt != nil {
		lastActive = *thread.LastActivityAt
	}
	client, sb, err := s.Sandboxes.RetainedClient(ctx, inst.SandboxID)
	if err != nil {
		return false, err
	}
	if _, ok := client.(provider.Pauser); !ok {
		return false, nil // cannot pause: it runs on, as a quota never ends an instance
	}
	marked, err := s.Instances(inst.WorkspaceID).MarkPaused(ctx, inst.ID, lastActive.Add(time.Microsecond).UTC(), now)
	if err != nil || !marked {
		return false, err // active again, or changed meanwhile
	}
	pinst, err := s.providerInstance(inst)
	if err == nil {
		err = pause(ctx, client, pinst)
	}
	switch {
	case errors.Is(err, provider.ErrGone):
		return false, s.Instances(inst.WorkspaceID).MarkDestroyed(ctx, inst.ID)
	case err != nil:
		_ = s.Instances(inst.WorkspaceID).MarkResumed(ctx, inst.ID)
		return false, err
	}
	s.Metrics.InstanceChanged(sb.Provider, "paused")
	s.resumeIfWanted(ctx, client, inst, pinst)
	return true, s.Audit.Append(ctx, auxilia.AuditEntry{WorkspaceID: inst.WorkspaceID, TokenName: auxilia.QuotaActor,
		Action: "quota.pause", ResourceType: "quota", ResourceID: string(auxilia.QuotaInstanceHours), Outcome: auxilia.OutcomeSuccess,
		Detail: fmt.Sprintf("paused instance %s of thread %s (sandbox %s), idle since %s: the instance-hours quota is used up",
			inst.ID, thread.Key, sb.Name, lastActive.UTC().Format(time.RFC3339))})
}
