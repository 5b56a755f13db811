package run

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// keepFailure records a start refused because the agent's sandbox could not
// be used (sandbox_unavailable) with its thread, made if it is new, so that
// the thread's page still shows the notice its caller was shown. Other
// failures pass through unrecorded. The start's answer is err whatever
// happens to the record.
func (s *Service) keepFailure(ctx context.Context, agent auxilia.Agent, key string, err error) error {
	var e *auxilia.Error
	if s.StartFailures == nil || !errors.As(err, &e) || e.Code != auxilia.CodeSandboxUnavailable {
		return err
	}
	f := auxilia.StartFailure{Notice: e.Message, SandboxID: extra(e, "sandbox_id"), SandboxName: extra(e, "sandbox_name"),
		Reason: extra(e, "probe_reason")}
	// Kept even when the caller has gone: the refusal happened.
	ctx = context.WithoutCancel(ctx)
	kerr := s.Tx.InTx(ctx, func(ctx context.Context) error {
		thread, err := s.Threads(agent.WorkspaceID).Lock(ctx, agent.ID, key)
		if err != nil {
			return err
		}
		f.ThreadID = thread.ID
		_, err = s.StartFailures(agent.WorkspaceID).Add(ctx, f)
		return err
	})
	if kerr != nil {
		slog.WarnContext(ctx, "keeping a refused run start failed", "agent_id", agent.ID, "error", kerr)
	}
	return err
}

func extra(e *auxilia.Error, key string) string {
	if v, ok := e.Extra[key]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

// ListStartFailures returns a page of a thread's refused run starts, oldest first.
func (s *Service) ListStartFailures(ctx context.Context, workspaceID, agentID, key string, req auxilia.PageRequest) (auxilia.Page[auxilia.StartFailure], error) {
	t, err := s.Thread(ctx, workspaceID, agentID, key)
	if err != nil {
		return auxilia.Page[auxilia.StartFailure]{}, err
	}
	if s.StartFailures == nil {
		return auxilia.Page[auxilia.StartFailure]{Items: []auxilia.StartFailure{}}, nil
	}
	return s.StartFailures(t.WorkspaceID).List(ctx, t.ID, req)
}
