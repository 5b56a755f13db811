package run

import (
	"context"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// An approval guards against a model's call acting without a person's say.
// The binding's rule says whose say it is: any token (the default), another
// token than the one that made the call, or an admin token; and whether
// the caller's own word on the call counts (the Auxilia-Approval header, or
// the answer its MCP client's person gave), or only a decision in the
// console does.

// identity is who acts, as approvals compare it: the token's id (a
// person's, once people sign in), or "" for the command line. Never a
// name: token names are not unique.
func identity(ctx context.Context) string {
	if a, ok := auxilia.ActorFrom(ctx); ok {
		return a.TokenID
	}
	return ""
}

// actsAsAdmin reports whether who acts is an admin: an admin token, or the
// command line, which is the operator's.
func actsAsAdmin(ctx context.Context) bool {
	a, ok := auxilia.ActorFrom(ctx)
	return !ok || a.Role == auxilia.RoleAdmin
}

// ruleOf is the approval rule of the agent's binding; an agent without one
// makes no calls, and its approvals follow the default.
func ruleOf(agent auxilia.Agent) auxilia.ApprovalRule {
	if agent.Binding == nil {
		return auxilia.DefaultApprovalRule
	}
	return agent.Binding.Approval
}

// CheckGrant refuses who acts in ctx the approval of a under the rule, as a
// decision in the console: the token that made the call where the rule
// asks for someone else, a member where it asks for an admin. Denying is
// never refused: a denial lets nothing run.
func CheckGrant(ctx context.Context, rule auxilia.ApprovalRule, a auxilia.Approval) error {
	switch {
	case rule.GrantedBy == auxilia.GrantedBySomeoneElse && a.RequestedByID == identity(ctx):
		return auxilia.Errorf(auxilia.CodeGrantNotAllowed,
			"This call was made with your token, and this agent's approvals are granted by another token than the one that made the call: someone else must approve it.").
			With("granted_by", string(rule.GrantedBy))
	case rule.GrantedBy == auxilia.GrantedByAdmin && !actsAsAdmin(ctx):
		return auxilia.Errorf(auxilia.CodeGrantNotAllowed,
			"This agent's approvals are granted by an admin token: an admin must approve this call.").
			With("granted_by", string(rule.GrantedBy))
	}
	return nil
}

// withCallRefused says why the caller's own word on its call does not
// grant it under the rule, in words that follow "the approval given with
// the call does not count: "; "" when it does.
func withCallRefused(ctx context.Context, rule auxilia.ApprovalRule) string {
	switch {
	case !rule.WithCall:
		return "this agent's approvals are decided in the console only"
	case rule.GrantedBy == auxilia.GrantedBySomeoneElse:
		return "it would be the caller vouching for its own call"
	case rule.GrantedBy == auxilia.GrantedByAdmin && !actsAsAdmin(ctx):
		return "this token is not an admin's"
	}
	return ""
}

// DescribeGrantor words who may grant under a rule.
func DescribeGrantor(r auxilia.ApprovalRule) string {
	who := map[auxilia.Grantor]string{
		auxilia.GrantedByAnyone:      "any token",
		auxilia.GrantedBySomeoneElse: "another token than the one that made the call",
		auxilia.GrantedByAdmin:       "an admin token",
	}[r.GrantedBy]
	if !r.WithCall {
		who += ", in the console only"
	}
	return who
}

// approvedAsMade checks an act that is approved as it is made or not at
// all, never kept pending for the console (a terminal, a file replaced):
// the caller must say a person approved it, and the agent's rule must let
// its word count. refusal is the act's own refusal without an approval;
// what names the act in the one given when the rule does not.
func approvedAsMade(ctx context.Context, agent auxilia.Agent, c Call, refusal *auxilia.Error, what string) error {
	rule := ruleOf(agent)
	refused := withCallRefused(ctx, rule)
	out := refusal.With("granted_by", string(rule.GrantedBy)).With("grant_with_call", refused == "")
	switch {
	case refused != "":
		out.Message = fmt.Sprintf("%s for agent %q is approved as it is made, never in the console, and an approval given with it does not count: %s.",
			what, agent.Name, refused)
		return out
	case !c.Approved:
		return out
	}
	return nil
}
