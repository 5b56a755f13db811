package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shownArgs bounds the arguments shown to the person asked to approve a call.
const shownArgs = 2000

// approving calls fn unapproved; when the binding says the tool needs a
// person's approval, it asks the person through the client (elicitation)
// and calls fn again approved, or records the refusal. A client that
// cannot ask gets a tool error saying who must approve, and where: the run
// service recorded the call as pending, for the console. So does a client
// whose person's answer would not count: the person it asks is its own
// token's, and the agent's approval rule wants someone else's grant, an
// admin's, or one made in the console.
func (s *session) approving(ctx context.Context, req *mcp.CallToolRequest, runID, tool string, fn func(approved bool) error) error {
	err := fn(false)
	var refusal *auxilia.Error
	if !errors.As(err, &refusal) || refusal.Code != auxilia.CodeApprovalRequired {
		return err
	}
	if refusal.Extra["grant_with_call"] == false {
		return err // its words say who grants the call, and where
	}
	if !canElicit(req.Session) {
		return auxilia.Errorf(auxilia.CodeApprovalRequired,
			"The tool %s needs a person's approval for agent %q, and this client cannot ask for it: a person must "+
				"approve the call in the Auxilia console (the run console of thread %q lists it), then repeat this call "+
				"with the same arguments. Or a person may allow the tool in the agent's settings.", tool, s.agent.Name, s.threadKey()).
			With("tool", tool)
	}
	answer, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Mode: "form",
		Message: fmt.Sprintf("Agent %q asks to call the sandbox tool %s with %s. Approve this call?",
			s.agent.Name, tool, clip(req.Params.Arguments)),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	})
	if err != nil {
		s.deps.Log.WarnContext(ctx, "ask for approval over MCP", "agent_id", s.agent.ID, "tool", tool, "error", err.Error())
		return auxilia.Errorf(auxilia.CodeApprovalRequired,
			"The tool %s needs a person's approval for agent %q, and asking for it through this client failed: "+
				"the call was not made.", tool, s.agent.Name)
	}
	if answer.Action == "accept" {
		return fn(true) // the run service records the approval with the call
	}
	if err := s.recordDenial(ctx, runID, tool, req.Params.Arguments, answer.Action); err != nil {
		return err
	}
	return auxilia.Errorf(auxilia.CodeApprovalRequired,
		"A person did not approve the call of %s (they chose %s): do not repeat it unless they ask.", tool, answer.Action).
		With("tool", tool)
}

// canElicit reports whether the client said it can ask its person for input.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// recordDenial writes a person's refusal of a call to the audit log, as
// the run service writes an approval.
func (s *session) recordDenial(ctx context.Context, runID, tool string, raw json.RawMessage, action string) error {
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	entry := auxilia.AuditEntry{WorkspaceID: s.actor.Workspace.ID, TokenID: s.actor.TokenID, TokenName: s.actor.TokenName, UserID: s.actor.UserID, UserName: s.actor.UserName,
		Action: "tool.approve", ResourceType: "run", ResourceID: runID, Outcome: auxilia.OutcomeDenied,
		Detail: fmt.Sprintf("a person did not approve %s %s for agent %q (%s, asked over MCP)", tool, run.DescribeArgs(args), s.agent.Name, action)}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return s.deps.Audit.Append(ctx, entry)
}

func clip(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "no arguments"
	}
	if len(raw) > shownArgs {
		return string(raw[:shownArgs]) + "…"
	}
	return string(raw)
}
