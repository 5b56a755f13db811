package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// InstanceLister lists what a workspace's instances are doing, from the
// store of one workspace.
type InstanceLister interface {
	ListInstances(ctx context.Context, f auxilia.InstanceFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.InstanceUse], error)
	ActiveCounts(ctx context.Context, sandboxIDs []string) (map[string]int, error)
}

// ListInstances returns a page of the workspace's active instances (being
// created, live or paused, pooled ones included) that f picks, with their
// sandboxes and threads. A sandbox named by f that is not the workspace's
// is not found.
func (s *Service) ListInstances(ctx context.Context, workspaceID string, f auxilia.InstanceFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.InstanceUse], error) {
	if f.SandboxID != "" {
		if _, _, err := s.Sandboxes.Client(ctx, workspaceID, f.SandboxID); err != nil && auxilia.IsCode(err, auxilia.CodeNotFound) {
			return auxilia.Page[auxilia.InstanceUse]{}, err
		}
	}
	lister, ok := s.Instances(workspaceID).(InstanceLister)
	if !ok {
		return auxilia.Page[auxilia.InstanceUse]{Items: []auxilia.InstanceUse{}}, nil
	}
	return lister.ListInstances(ctx, f, req)
}

// ActiveInstanceCounts returns how many active instances (being created,
// live or paused, pooled ones included) each of the sandboxes has.
func (s *Service) ActiveInstanceCounts(ctx context.Context, workspaceID string, sandboxIDs []string) (map[string]int, error) {
	lister, ok := s.Instances(workspaceID).(InstanceLister)
	if !ok {
		return map[string]int{}, nil
	}
	return lister.ActiveCounts(ctx, sandboxIDs)
}

// instanceOf returns the sandbox's active instance id with the sandbox and
// its client: not found when either is not the workspace's, or the instance
// is not the sandbox's or no longer active.
func (s *Service) instanceOf(ctx context.Context, workspaceID, sandboxID, id string) (auxilia.Instance, auxilia.Sandbox, provider.Client, error) {
	client, sb, err := s.Sandboxes.Client(ctx, workspaceID, sandboxID)
	if err != nil {
		return auxilia.Instance{}, sb, nil, unusable(sb, err)
	}
	inst, err := s.Instances(workspaceID).Get(ctx, id)
	if err != nil {
		return inst, sb, nil, err
	}
	if inst.WorkspaceID != workspaceID || inst.SandboxID != sandboxID ||
		(inst.Status != auxilia.InstanceLive && inst.Status != auxilia.InstanceCreating) {
		return inst, sb, nil, auxilia.NotFound("instance")
	}
	return inst, sb, client, nil
}

// PauseInstance pauses a live instance at its provider now, as the idle job
// would: its files (and memory, where the provider keeps it) stay, and the
// thread's next run resumes it.
func (s *Service) PauseInstance(ctx context.Context, workspaceID, sandboxID, id string) (auxilia.Instance, error) {
	inst, sb, client, err := s.instanceOf(ctx, workspaceID, sandboxID, id)
	if err != nil {
		return inst, err
	}
	if _, ok := client.(provider.Pauser); !ok {
		return inst, auxilia.Errorf(auxilia.CodeConflict, "Sandbox '%s' cannot pause its instances: its provider has no pause.", sb.Name)
	}
	switch {
	case inst.Status != auxilia.InstanceLive:
		return inst, auxilia.Errorf(auxilia.CodeConflict, "The instance is still being created: pause it once it is live.")
	case inst.PausedAt != nil:
		return inst, auxilia.Errorf(auxilia.CodeConflict, "The instance is paused already.")
	}
	now := s.opt.Clock().UTC()
	// Paused whatever the thread did before now; a tool call from now on wins.
	marked, err := s.Instances(workspaceID).MarkPaused(ctx, inst.ID, now.Add(time.Microsecond), now)
	if err != nil {
		return inst, err
	}
	if !marked {
		return inst, auxilia.Errorf(auxilia.CodeConflict, "The instance changed meanwhile (a run used it, or it was paused or released): look again.")
	}
	pinst, err := s.providerInstance(inst)
	if err == nil {
		err = pause(ctx, client, pinst)
	}
	switch {
	case errors.Is(err, provider.ErrGone):
		_ = s.Instances(workspaceID).MarkDestroyed(ctx, inst.ID)
		return inst, auxilia.Errorf(auxilia.CodeConflict, "The instance is gone at its provider: the thread's next run makes a new one.")
	case err != nil:
		_ = s.Instances(workspaceID).MarkResumed(ctx, inst.ID)
		return inst, unavailable(sb, err)
	}
	s.Metrics.InstanceChanged(sb.Provider, "paused")
	s.resumeIfWanted(ctx, client, inst, pinst)
	inst.PausedAt = &now
	return inst, auxilia.Audit(ctx, s.Audit, workspaceID, "instance.pause", "sandbox", sb.ID,
		fmt.Sprintf("paused instance %s of sandbox '%s'%s", inst.ID, sb.Name, threadWords(inst)))
}

// ResumeInstance resumes a paused instance at its provider.
func (s *Service) ResumeInstance(ctx context.Context, workspaceID, sandboxID, id string) (auxilia.Instance, error) {
	inst, sb, client, err := s.instanceOf(ctx, workspaceID, sandboxID, id)
	if err != nil {
		return inst, err
	}
	if inst.PausedAt == nil {
		return inst, auxilia.Errorf(auxilia.CodeConflict, "The instance is not paused.")
	}
	inst, err = s.reconnect(ctx, sb, client, inst)
	if errors.Is(err, provider.ErrGone) {
		_ = s.Instances(workspaceID).MarkDestroyed(ctx, inst.ID)
		return inst, auxilia.Errorf(auxilia.CodeConflict, "The instance is gone at its provider: the thread's next run makes a new one.")
	}
	if err != nil {
		return inst, err
	}
	return inst, auxilia.Audit(ctx, s.Audit, workspaceID, "instance.resume", "sandbox", sb.ID,
		fmt.Sprintf("resumed instance %s of sandbox '%s'%s", inst.ID, sb.Name, threadWords(inst)))
}

// DestroyInstance detaches an instance from its thread and destroys it at
// its provider (or leaves it to the reaper when the provider does not
// answer). Its files go with it; the thread's next run makes a new one.
func (s *Service) DestroyInstance(ctx context.Context, workspaceID, sandboxID, id string) error {
	inst, sb, _, err := s.instanceOf(ctx, workspaceID, sandboxID, id)
	if err != nil {
		return err
	}
	err = s.Tx.InTx(ctx, func(ctx context.Context) error {
		if err := s.Instances(workspaceID).Release(ctx, inst.ID); err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.Audit, workspaceID, "instance.destroy", "sandbox", sb.ID,
			fmt.Sprintf("destroyed instance %s of sandbox '%s'%s", inst.ID, sb.Name, threadWords(inst)))
	})
	if err != nil {
		return err
	}
	s.destroy(ctx, inst)
	return nil
}

func threadWords(inst auxilia.Instance) string {
	if inst.ThreadID == "" {
		return " (warm pool)"
	}
	return " (thread " + inst.ThreadID + ")"
}
