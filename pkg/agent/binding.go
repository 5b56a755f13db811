package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
)

// Bind gives an agent a sandbox of its workspace, replacing any earlier
// binding. tools maps tool names to policies; a tool left out has its
// default policy. approval says who may grant the approvals they need (nil:
// the default rule). Moving to another sandbox releases the instances the
// old one made. expect, when set, is the agent's version the caller read.
func (s *Service) Bind(ctx context.Context, workspaceID, agentID, sandboxID string, tools map[string]string,
	approval *auxilia.ApprovalRule, expect auxilia.Expect) (auxilia.Binding, error) {
	policies, fe := toolPolicies(tools)
	rule := auxilia.DefaultApprovalRule
	if approval != nil {
		rule = *approval
	}
	if !rule.GrantedBy.Valid() {
		fe.Add("approval.granted_by", "must be one of: %s", grantorNames())
	}
	if sandboxID == "" {
		fe.Add("sandbox_id", "is required")
	} else if id, ok := auxilia.ParseID(sandboxID); ok {
		sandboxID = id
	} else {
		fe.Add("sandbox_id", "is not a sandbox of this workspace")
	}
	if err := fe.Err(); err != nil {
		return auxilia.Binding{}, err
	}
	var out auxilia.Binding
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		// The sandbox's lock orders this bind with a concurrent delete of the sandbox.
		if err := s.tx.Lock(ctx, "sandbox:"+sandboxID); err != nil {
			return err
		}
		a, err := s.lockAgent(ctx, workspaceID, agentID, expect)
		if err != nil {
			return err
		}
		if err := mayChangeRule(ctx, a, &rule); err != nil {
			return err
		}
		sb, err := s.sandboxes(workspaceID).Get(ctx, sandboxID)
		if auxilia.IsCode(err, auxilia.CodeNotFound) {
			var fe auxilia.FieldErrors
			fe.Add("sandbox_id", "is not a sandbox of this workspace")
			return fe.Err()
		}
		if err != nil {
			return err
		}
		if a.Binding != nil && a.Binding.SandboxID != sandboxID {
			if _, _, err := s.letGo(ctx, workspaceID, agentID, MovedNotice(a.Name, a.Binding.SandboxName, sb.Name)); err != nil {
				return err
			}
		}
		if err := s.bindings(workspaceID).Put(ctx, agentID, sandboxID, policies, rule); err != nil {
			return err
		}
		if out, err = s.bindings(workspaceID).Get(ctx, agentID); err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.audit, workspaceID, "binding.put", "binding", agentID,
			fmt.Sprintf("bound agent %q to sandbox %q; %s%s", a.Name, sb.Name, describeTools(policies), describeRule(rule)))
	})
	return out, err
}

// Binding returns an agent's binding.
func (s *Service) Binding(ctx context.Context, workspaceID, agentID string) (auxilia.Binding, error) {
	a, err := s.agents(workspaceID).Get(ctx, agentID)
	if err != nil {
		return auxilia.Binding{}, err
	}
	if a.Binding == nil {
		return auxilia.Binding{}, auxilia.Errorf(auxilia.CodeNotFound, "Agent %q has no sandbox.", a.Name)
	}
	return *a.Binding, nil
}

// Unbind takes an agent's sandbox away: it runs on without code execution,
// and its threads' instances are released. expect, when set, is the
// agent's version the caller read; the answer is its new version.
func (s *Service) Unbind(ctx context.Context, workspaceID, agentID string, expect auxilia.Expect) (int, error) {
	var version int
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		a, err := s.lockAgent(ctx, workspaceID, agentID, expect)
		if err != nil {
			return err
		}
		if a.Binding == nil {
			return auxilia.Errorf(auxilia.CodeNotFound, "Agent %q has no sandbox.", a.Name)
		}
		if err := mayChangeRule(ctx, a, nil); err != nil {
			return err
		}
		if err := s.bindings(workspaceID).Delete(ctx, agentID); err != nil {
			return err
		}
		released, ended, err := s.letGo(ctx, workspaceID, agentID, UnboundNotice(a.Name, a.Binding.SandboxName))
		if err != nil {
			return err
		}
		unbound, err := s.agents(workspaceID).Get(ctx, agentID)
		if err != nil {
			return err
		}
		version = unbound.Version
		return auxilia.Audit(ctx, s.audit, workspaceID, "binding.delete", "binding", agentID,
			fmt.Sprintf("unbound agent %q from sandbox %q; released %d instance(s); ended %d run(s)", a.Name, a.Binding.SandboxName, released, ended))
	})
	return version, err
}

// letGo releases the instances of the agent's threads and ends its open
// runs, which worked in them, with notice saying why.
func (s *Service) letGo(ctx context.Context, workspaceID, agentID, notice string) (released, ended int64, err error) {
	if released, err = s.instances(workspaceID).ReleaseForAgent(ctx, agentID); err != nil {
		return 0, 0, err
	}
	ended, err = s.instances(workspaceID).EndRunsForAgent(ctx, agentID, notice)
	return released, ended, err
}

// UnboundNotice is the notice of a run its agent's unbinding ended.
func UnboundNotice(agent, sandbox string) string {
	return fmt.Sprintf("Agent '%s' no longer has sandbox '%s', which ended this run and released its instance. "+
		"Give the agent a sandbox in its Tools, then start a new run.", agent, sandbox)
}

// MovedNotice is the notice of a run its agent's move to another sandbox ended.
func MovedNotice(agent, from, to string) string {
	return fmt.Sprintf("Agent '%s' was moved from sandbox '%s' to '%s', which ended this run and released its instance. "+
		"Start a new run to work on '%s'.", agent, from, to, to)
}

// toolPolicies checks a policy map and fills in every missing tool with its default.
func toolPolicies(in map[string]string) (map[string]auxilia.ToolPolicy, auxilia.FieldErrors) {
	var fe auxilia.FieldErrors
	out := run.DefaultPolicies()
	for name, policy := range in {
		_, known := run.LookupTool(name)
		switch {
		case !known:
			fe.Add("tools."+name, "is not a sandbox tool (tools: %s)", strings.Join(run.ToolNames(), ", "))
		case !auxilia.ToolPolicy(policy).Valid():
			fe.Add("tools."+name, "must be one of: always_allow, needs_approval, disabled")
		default:
			out[name] = auxilia.ToolPolicy(policy)
		}
	}
	return out, fe
}

// mayChangeRule refuses a member token a binding write (next: the rule it
// sets; nil for a removal) that sets an approval rule other than the
// default, or changes or removes a binding that has one: otherwise the
// token that makes an agent's calls could loosen who grants them. The
// command line is the operator's, as an admin's.
func mayChangeRule(ctx context.Context, a auxilia.Agent, next *auxilia.ApprovalRule) error {
	if actor, ok := auxilia.ActorFrom(ctx); !ok || actor.Role == auxilia.RoleAdmin {
		return nil
	}
	if a.Binding != nil && a.Binding.Approval.Guarded() {
		return auxilia.Errorf(auxilia.CodeForbidden,
			"Agent %q's approvals are granted by %s: only an admin token changes or removes its sandbox binding.",
			a.Name, run.DescribeGrantor(a.Binding.Approval))
	}
	if next != nil && next.Guarded() {
		return auxilia.Errorf(auxilia.CodeForbidden,
			"Only an admin token sets who grants an agent's approvals: leave approval out, or ask an admin.")
	}
	return nil
}

func grantorNames() string {
	names := make([]string, len(auxilia.Grantors))
	for i, g := range auxilia.Grantors {
		names[i] = string(g)
	}
	return strings.Join(names, ", ")
}

// describeRule says, for the audit log, how a binding's approvals are
// granted when that is not the default.
func describeRule(r auxilia.ApprovalRule) string {
	if !r.Guarded() {
		return ""
	}
	return "; approvals granted by " + run.DescribeGrantor(r)
}

func describeTools(p map[string]auxilia.ToolPolicy) string {
	var parts []string
	for _, t := range run.Tools {
		if p[t.Name] != auxilia.AlwaysAllow {
			parts = append(parts, t.Name+" "+string(p[t.Name]))
		}
	}
	if len(parts) == 0 {
		return "every tool always allowed"
	}
	return strings.Join(parts, ", ")
}
