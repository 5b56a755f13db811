package run

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// maxApprovalText bounds each text of a call's arguments kept with its approval.
const maxApprovalText = 4096

// maxApprovals bounds the approvals a thread's list gives.
const maxApprovals = 200

// Approvals keeps the approvals one workspace's tool calls wait for.
type Approvals interface {
	Request(ctx context.Context, a auxilia.Approval) (auxilia.Approval, error)
	Use(ctx context.Context, threadID, tool, fingerprint string) (auxilia.Approval, bool, error)
	Settle(ctx context.Context, threadID, tool, fingerprint, by string) error
	Decide(ctx context.Context, threadID, id string, status auxilia.ApprovalStatus, by string) (auxilia.Approval, error)
	Get(ctx context.Context, threadID, id string) (auxilia.Approval, error)
	List(ctx context.Context, threadID string, limit int) ([]auxilia.Approval, error)
}

// Origin is how a tool call reached the service.
type Origin struct {
	// Via names the way in: "api" (the default) or "mcp".
	Via string
	// AsksPerson says the caller asks its own person for an approval (an
	// MCP client that can elicit): no pending approval is recorded for it.
	AsksPerson bool
}

type originKey struct{}

// WithOrigin returns a context whose tool calls came as o says.
func WithOrigin(ctx context.Context, o Origin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}

func originOf(ctx context.Context) Origin {
	o, _ := ctx.Value(originKey{}).(Origin)
	if o.Via == "" {
		o.Via = "api"
	}
	return o
}

// approve lets a call that needs approval go ahead when the caller says a
// person approved it and the agent's rule lets the caller's word count, or
// when a person's approval of the same call of the thread waits to be used
// (it is used up). A denial is answered as one; otherwise the call is
// recorded as pending, for a person to decide: even from a client that asks
// its own person, when the caller's word would not count.
func (s *Service) approve(ctx context.Context, r auxilia.Run, agent auxilia.Agent, c Call) error {
	fp, err := fingerprint(c.Tool, c.Input)
	if err != nil {
		return err
	}
	refused := withCallRefused(ctx, ruleOf(agent))
	if c.Approved && refused == "" {
		// The call waiting for this approval, if it was refused before, is settled.
		if err := s.Approvals(r.WorkspaceID).Settle(ctx, r.ThreadID, c.Tool, fp, requester(ctx)); err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.Audit, r.WorkspaceID, "tool.approve", "run", r.ID,
			fmt.Sprintf("a person approved %s %s for agent %q", c.Tool, DescribeArgs(c.Args), agent.Name))
	}
	decided, ok, err := s.Approvals(r.WorkspaceID).Use(ctx, r.ThreadID, c.Tool, fp)
	if err != nil {
		return err
	}
	if ok && decided.Status == auxilia.ApprovalApproved {
		return nil // the decision was audited when it was made
	}
	if ok {
		return auxilia.Errorf(auxilia.CodeApprovalDenied,
			"A person denied the call of %s for agent %q: do not repeat it unless they ask.", c.Tool, agent.Name).
			With("tool", c.Tool).With("approval_id", decided.ID)
	}
	if c.Approved {
		if err := s.auditRefusedWord(ctx, r, agent, c, refused); err != nil {
			return err
		}
	}
	refusal := approvalRequired(ctx, agent, c)
	o := originOf(ctx)
	if o.AsksPerson && refused == "" {
		return refusal
	}
	args, cut := approvalArgs(c.Input)
	a := auxilia.Approval{WorkspaceID: r.WorkspaceID, RunID: r.ID, ThreadID: r.ThreadID, Tool: c.Tool,
		Arguments: args, ArgumentsCut: cut, Fingerprint: fp, RequestedBy: requester(ctx), RequestedByID: identity(ctx), Via: o.Via}
	pending, err := s.Approvals(r.WorkspaceID).Request(ctx, a)
	if err != nil {
		return err
	}
	return refusal.With("approval_id", pending.ID)
}

// auditRefusedWord records that a caller said a person approved its call,
// the agent's rule did not let that count (the caller vouched for itself),
// and no decision made in the console let the call go ahead.
func (s *Service) auditRefusedWord(ctx context.Context, r auxilia.Run, agent auxilia.Agent, c Call, why string) error {
	e := auxilia.AuditEntry{WorkspaceID: r.WorkspaceID, TokenName: auxilia.CommandLine, Action: "tool.approve",
		ResourceType: "run", ResourceID: r.ID, Outcome: auxilia.OutcomeDenied,
		Detail: fmt.Sprintf("the approval given with the call of %s %s for agent %q (over %s) did not count: %s",
			c.Tool, DescribeArgs(c.Args), agent.Name, originOf(ctx).Via, why)}
	if actor, ok := auxilia.ActorFrom(ctx); ok {
		e.TokenID, e.TokenName = actor.TokenID, actor.TokenName
	}
	return s.Audit.Append(ctx, e)
}

// approvalRequired refuses a call that waits for a person's approval,
// saying who may grant it and whether the caller's own word on the call
// would (grant_with_call).
func approvalRequired(ctx context.Context, agent auxilia.Agent, c Call) *auxilia.Error {
	rule := ruleOf(agent)
	refused := withCallRefused(ctx, rule)
	var e *auxilia.Error
	if refused == "" {
		e = auxilia.Errorf(auxilia.CodeApprovalRequired,
			"The tool %s needs a person's approval for agent %q: a person can approve the call in the Auxilia console; then repeat it.",
			c.Tool, agent.Name)
	} else {
		e = auxilia.Errorf(auxilia.CodeApprovalRequired,
			"The tool %s needs approval for agent %q from %s: the call waits for it in the Auxilia console (the run's approval card lists it); then repeat it. An approval given with the call does not count: %s.",
			c.Tool, agent.Name, DescribeGrantor(rule), refused)
	}
	return e.With("tool", c.Tool).With("arguments", c.Args).
		With("granted_by", string(rule.GrantedBy)).With("grant_with_call", refused == "")
}

// requester names the token that made the call.
func requester(ctx context.Context) string {
	if a, ok := auxilia.ActorFrom(ctx); ok {
		return a.TokenName
	}
	return auxilia.CommandLine
}

// fingerprint identifies a call by its tool and exact arguments.
func fingerprint(tool string, in any) (string, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(append([]byte(tool+"\x00"), raw...))
	return hex.EncodeToString(sum[:]), nil
}

// approvalArgs are a call's arguments as a person reads them: a file's
// content as text (or its size, when it is not text), each text cut to
// maxApprovalText bytes. cut says one was.
func approvalArgs(in any) (map[string]any, bool) {
	var args map[string]any
	if w, ok := in.(WriteInput); ok {
		args = map[string]any{"path": w.Path}
		if utf8.Valid(w.Content) {
			args["content"] = string(w.Content)
		} else {
			args["content"] = fmt.Sprintf("(%d bytes, not text)", len(w.Content))
		}
	} else {
		raw, _ := json.Marshal(in) // the tools' inputs are plain structs
		_ = json.Unmarshal(raw, &args)
	}
	cut := false
	for k, v := range args {
		if text, ok := v.(string); ok && len(text) > maxApprovalText {
			n := maxApprovalText
			for n > 0 && !utf8.RuneStart(text[n]) {
				n--
			}
			args[k], cut = text[:n]+"…", true
		}
	}
	return args, cut
}

// ListApprovals returns the approvals of the run's thread, newest first:
// those its calls wait for and those a person decided; and the approval
// rule of the run's agent, which says who may grant them (CheckGrant).
func (s *Service) ListApprovals(ctx context.Context, workspaceID, runID string) ([]auxilia.Approval, auxilia.ApprovalRule, error) {
	r, rule, err := s.runRule(ctx, workspaceID, runID)
	if err != nil {
		return nil, rule, err
	}
	list, err := s.Approvals(workspaceID).List(ctx, r.ThreadID, maxApprovals)
	return list, rule, err
}

// runRule returns the run and the approval rule of its agent's binding now.
func (s *Service) runRule(ctx context.Context, workspaceID, runID string) (auxilia.Run, auxilia.ApprovalRule, error) {
	r, err := s.Runs(workspaceID).Get(ctx, runID)
	if err != nil {
		return r, auxilia.DefaultApprovalRule, err
	}
	agent, err := s.Agents.Get(ctx, workspaceID, r.AgentID)
	if err != nil {
		return r, auxilia.DefaultApprovalRule, err
	}
	return r, ruleOf(agent), nil
}

// Decide records a person's decision on a pending approval of the run's
// thread: the call, repeated, goes ahead once (approved) or is refused
// once (denied). An approval the agent's rule does not let who acts grant
// is refused (CheckGrant). It returns the decided approval and the rule.
func (s *Service) Decide(ctx context.Context, workspaceID, runID, approvalID string, approve bool) (auxilia.Approval, auxilia.ApprovalRule, error) {
	r, rule, err := s.runRule(ctx, workspaceID, runID)
	if err != nil {
		return auxilia.Approval{}, rule, err
	}
	status, verb := auxilia.ApprovalDenied, "denied"
	if approve {
		status, verb = auxilia.ApprovalApproved, "approved"
	}
	var a auxilia.Approval
	err = s.Tx.InTx(ctx, func(ctx context.Context) error {
		var err error
		if approve {
			if a, err = s.Approvals(workspaceID).Get(ctx, r.ThreadID, approvalID); err != nil {
				return err
			}
			if err := CheckGrant(ctx, rule, a); err != nil {
				return err
			}
		}
		if a, err = s.Approvals(workspaceID).Decide(ctx, r.ThreadID, approvalID, status, requester(ctx)); err != nil {
			return err
		}
		e := auxilia.AuditEntry{WorkspaceID: workspaceID, TokenName: auxilia.CommandLine, Action: "tool.approve",
			ResourceType: "run", ResourceID: a.RunID, Outcome: auxilia.OutcomeSuccess,
			Detail: fmt.Sprintf("a person %s %s %s (approval %s, asked over %s)", verb, a.Tool, DescribeArgs(a.Arguments), a.ID, a.Via)}
		if !approve {
			e.Outcome = auxilia.OutcomeDenied
		}
		if actor, ok := auxilia.ActorFrom(ctx); ok {
			e.TokenID, e.TokenName = actor.TokenID, actor.TokenName
		}
		return s.Audit.Append(ctx, e)
	})
	return a, rule, err
}
