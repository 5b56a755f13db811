package run

import (
	"context"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Get returns a run of the workspace; a run idle past the timeout reads as expired.
func (s *Service) Get(ctx context.Context, workspaceID, id string) (auxilia.Run, error) {
	r, err := s.Runs(workspaceID).Get(ctx, id)
	if err == nil && s.idle(r) {
		r.Status = auxilia.RunExpired
	}
	return r, err
}

func (s *Service) idle(r auxilia.Run) bool {
	return r.Status == auxilia.RunActive && timeSince(r.LastActivityAt) > s.opt.IdleTimeout
}

// Complete ends a run. The instance's files are saved where the provider
// keeps them between runs (Cloud Run: its snapshot); the run's notice says
// so if that failed.
func (s *Service) Complete(ctx context.Context, workspaceID, id string) (auxilia.Run, error) {
	r, err := s.Runs(workspaceID).Get(ctx, id)
	if err != nil {
		return r, err
	}
	err = s.Tx.InTx(ctx, func(ctx context.Context) error {
		ended, err := s.Runs(workspaceID).End(ctx, id, auxilia.RunCompleted)
		if err != nil {
			return err
		}
		if !ended {
			return notActive(r, "it is already "+string(r.Status))
		}
		return auxilia.Audit(ctx, s.Audit, workspaceID, "run.complete", "run", id, "completed the run")
	})
	if err != nil {
		return r, err
	}
	if perr := s.persist(ctx, r); perr != nil {
		r.Notice = "The run ended, but saving its sandbox's files failed: " + reasonText(perr)
	}
	out, err := s.Runs(workspaceID).Get(ctx, id)
	out.Notice = r.Notice
	return out, err
}

// expire ends an idle run and saves its instance's files.
func (s *Service) expire(ctx context.Context, r auxilia.Run) {
	ctx = context.WithoutCancel(ctx)
	if ended, err := s.Runs(r.WorkspaceID).End(ctx, r.ID, auxilia.RunExpired); err == nil && ended {
		_ = s.persist(ctx, r)
	}
}

// persist asks the provider to keep the run's instance's files between runs.
func (s *Service) persist(ctx context.Context, r auxilia.Run) error {
	if r.InstanceID == "" {
		return nil
	}
	inst, err := s.Instances(r.WorkspaceID).Get(ctx, r.InstanceID)
	if err != nil || inst.Status != auxilia.InstanceLive {
		return err
	}
	client, _, err := s.Sandboxes.RetainedClient(ctx, inst.SandboxID)
	if err != nil {
		return err
	}
	pinst, err := s.providerInstance(inst)
	if err != nil {
		return err
	}
	return client.Persist(ctx, pinst)
}

// Thread returns the agent's thread keyed key.
func (s *Service) Thread(ctx context.Context, workspaceID, agentID, key string) (auxilia.Thread, error) {
	if _, err := s.Agents.Get(ctx, workspaceID, agentID); err != nil {
		return auxilia.Thread{}, err
	}
	t, err := s.Threads(workspaceID).Get(ctx, agentID, key)
	if err != nil {
		return t, err
	}
	s.withPausesAt(ctx, &t)
	return t, nil
}

// withPausesAt works out when the thread's running instance will pause if
// the thread stays idle, from its sandbox's idle_minutes.
func (s *Service) withPausesAt(ctx context.Context, t *auxilia.Thread) {
	inst := t.Instance
	if inst == nil || inst.Status != auxilia.InstanceLive || inst.PausedAt != nil || t.LastActivityAt == nil {
		return
	}
	_, sb, err := s.Sandboxes.RetainedClient(ctx, inst.SandboxID)
	if err != nil {
		return
	}
	cfg, err := s.Sandboxes.Config(sb)
	if err != nil {
		return
	}
	if idle := provider.LifecycleOf(cfg).IdleAfter; idle > 0 {
		at := t.LastActivityAt.Add(idle)
		t.PausesAt = &at
	}
}

// ListThreads returns a page of the agent's threads.
func (s *Service) ListThreads(ctx context.Context, workspaceID, agentID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Thread], error) {
	if _, err := s.Agents.Get(ctx, workspaceID, agentID); err != nil {
		return auxilia.Page[auxilia.Thread]{}, err
	}
	page, err := s.Threads(workspaceID).List(ctx, agentID, req)
	for i := range page.Items {
		s.withPausesAt(ctx, &page.Items[i])
	}
	return page, err
}

// ListRuns returns a page of a thread's runs.
func (s *Service) ListRuns(ctx context.Context, workspaceID, agentID, key string, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error) {
	t, err := s.Thread(ctx, workspaceID, agentID, key)
	if err != nil {
		return auxilia.Page[auxilia.Run]{}, err
	}
	page, err := s.Runs(t.WorkspaceID).List(ctx, t.ID, req)
	for i := range page.Items {
		if s.idle(page.Items[i]) {
			page.Items[i].Status = auxilia.RunExpired
		}
	}
	return page, err
}

// DeleteThread removes a thread with its runs and destroys its instance at
// the provider (or leaves it to the reaper when the provider does not answer).
// check, when set, sees the thread as it is, locked, and may refuse the
// delete (a stale If-Match).
func (s *Service) DeleteThread(ctx context.Context, workspaceID, agentID, key string, check func(auxilia.Thread) error) error {
	if _, err := s.Agents.Get(ctx, workspaceID, agentID); err != nil {
		return err
	}
	var t auxilia.Thread
	err := s.Tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if t, err = s.Threads(workspaceID).LockExisting(ctx, agentID, key); err != nil {
			return err
		}
		if check != nil {
			s.withPausesAt(ctx, &t)
			if err := check(t); err != nil {
				return err
			}
		}
		if t.Instance != nil {
			if err := s.Instances(t.WorkspaceID).Release(ctx, t.Instance.ID); err != nil {
				return err
			}
		}
		if err := s.Threads(t.WorkspaceID).Delete(ctx, t.ID); err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.Audit, workspaceID, "thread.delete", "thread", t.ID, "deleted thread "+t.Key)
	})
	if err != nil || t.Instance == nil {
		return err
	}
	s.destroy(ctx, *t.Instance)
	return nil
}
