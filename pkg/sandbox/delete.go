package sandbox

import (
	"context"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// maxListedAgents caps the agents a "sandbox in use" answer names.
const maxListedAgents = 200

// Delete removes a sandbox. While agents are bound to it, it refuses with
// sandbox_in_use naming them, unless detach is set: then it unbinds them,
// releases every instance the sandbox made (the reaper destroys them with
// the sandbox's retained credentials), ends the runs open on it (their
// notice says why) and deletes it, all in one transaction. expect, when set, is the version the caller last read.
func (r *Registry) Delete(ctx context.Context, workspaceID, id string, expect auxilia.Expect, detach bool) error {
	return r.Tx.InTx(ctx, func(ctx context.Context) error {
		// The lock orders this delete with concurrent binds to the sandbox.
		if err := r.Tx.Lock(ctx, "sandbox:"+id); err != nil {
			return err
		}
		sb, err := r.Store(workspaceID).Get(ctx, id)
		if err != nil {
			return err
		}
		if err := expect.Check("sandbox", sb.Version); err != nil {
			return err
		}
		users, err := r.Bindings(workspaceID).AgentsOf(ctx, id, auxilia.PageRequest{Size: maxListedAgents})
		if err != nil {
			return err
		}
		var detached, released, ended int64
		if len(users.Items) > 0 {
			if !detach {
				return inUse(users)
			}
			if err := r.lockAgents(ctx, workspaceID, id); err != nil {
				return err
			}
			if detached, err = r.Bindings(workspaceID).DeleteForSandbox(ctx, id); err != nil {
				return err
			}
		}
		if released, err = r.Instances(workspaceID).ReleaseForSandbox(ctx, id); err != nil {
			return err
		}
		if ended, err = r.Instances(workspaceID).EndRunsForSandbox(ctx, id, DeletedNotice(sb.Name)); err != nil {
			return err
		}
		if err := r.Store(workspaceID).Delete(ctx, id, sb.Version); err != nil {
			return err
		}
		return auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.delete", "sandbox", id,
			fmt.Sprintf("deleted sandbox %q; detached %d agent(s); released %d instance(s); ended %d run(s)", sb.Name, detached, released, ended))
	})
}

// DeletedNotice is the notice of a run its sandbox's delete ended.
func DeletedNotice(name string) string {
	return fmt.Sprintf("Sandbox '%s' was deleted, which ended this run and destroyed its instance. "+
		"Give the agent a sandbox in its Tools, then start a new run.", name)
}

// lockAgents takes the lock of every agent bound to the sandbox, in order:
// detaching them makes a new version of each, and every writer of an agent
// holds its lock (sandbox locks are always taken before agent locks). The
// sandbox's own lock keeps new agents from binding meanwhile.
func (r *Registry) lockAgents(ctx context.Context, workspaceID, sandboxID string) error {
	ids, err := r.Bindings(workspaceID).AgentIDsOf(ctx, sandboxID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := r.Tx.Lock(ctx, "agent:"+id); err != nil {
			return err
		}
	}
	return nil
}

func inUse(users auxilia.Page[auxilia.AgentRef]) error {
	agents := make([]map[string]string, len(users.Items))
	for i, a := range users.Items {
		agents[i] = map[string]string{"id": a.ID, "name": a.Name, "emoji": a.Emoji, "color": a.Color}
	}
	n := fmt.Sprint(len(users.Items))
	if users.Next != "" {
		n = fmt.Sprintf("more than %d", len(users.Items))
	}
	return auxilia.Errorf(auxilia.CodeSandboxInUse, "Sandbox is used by %s agent(s) — detach it first", n).With("agents", agents)
}

// Agents returns a page of the agents bound to a sandbox of the workspace.
func (r *Registry) Agents(ctx context.Context, workspaceID, id string, req auxilia.PageRequest) (auxilia.Page[auxilia.AgentRef], error) {
	if _, err := r.Store(workspaceID).Get(ctx, id); err != nil {
		return auxilia.Page[auxilia.AgentRef]{}, err
	}
	return r.Bindings(workspaceID).AgentsOf(ctx, id, req)
}
