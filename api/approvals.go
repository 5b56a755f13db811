package api

import (
	"context"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/labstack/echo/v4"
)

// ApprovalService is what the API needs of the approvals tool calls wait for.
type ApprovalService interface {
	ListApprovals(ctx context.Context, workspaceID, runID string) ([]auxilia.Approval, auxilia.ApprovalRule, error)
	Decide(ctx context.Context, workspaceID, runID, approvalID string, approve bool) (auxilia.Approval, auxilia.ApprovalRule, error)
}

type approvalsHandler struct{ svc ApprovalService }

func (h approvalsHandler) routes(g routes) {
	g.GET("/runs/:run_id/approvals", h.list)
	g.POST("/runs/:run_id/approvals/:approval_id/decision", h.decide)
}

type approvalView struct {
	ID    string `json:"id" format:"uuid"`
	RunID string `json:"run_id" format:"uuid"`
	Tool  string `json:"tool" example:"write_file"`
	// The call's arguments as the caller gave them; a file's content as text.
	Arguments map[string]any `json:"arguments"`
	// A text of the arguments was cut at 4 KiB for keeping.
	ArgumentsTruncated bool   `json:"arguments_truncated"`
	Status             string `json:"status" enums:"pending,approved,denied"`
	// The name of the token that made the call (names are not unique: who may approve is judged by the token itself).
	RequestedBy string    `json:"requested_by" example:"agent runtime"`
	Via         string    `json:"via" enums:"api,mcp"`
	RequestedAt time.Time `json:"requested_at" format:"date-time"`
	// The name of the token of the person who decided.
	DecidedBy *string    `json:"decided_by" extensions:"x-nullable"`
	DecidedAt *time.Time `json:"decided_at" format:"date-time" extensions:"x-nullable"`
	// When the repeated call used the decision.
	UsedAt *time.Time `json:"used_at" format:"date-time" extensions:"x-nullable"`
	// Who may approve it, by the agent's approval rule now.
	GrantedBy string `json:"granted_by" enums:"anyone,someone_else,admin"`
	// The token reading it may approve it: false for one the rule does not let grant it (the token that made the call, under someone_else; a member, under admin), and for a decided approval. Any token may deny a pending one.
	CanApprove bool `json:"can_approve"`
} //@name Approval

type approvalList struct {
	Items []approvalView `json:"items"`
} //@name ApprovalList

type decisionRequest struct {
	Decision string `json:"decision" enums:"approve,deny"`
} //@name ApprovalDecision

// viewApproval shows an approval to the token in ctx, under the agent's rule.
func viewApproval(ctx context.Context, rule auxilia.ApprovalRule, a auxilia.Approval) approvalView {
	v := approvalView{ID: a.ID, RunID: a.RunID, Tool: a.Tool, Arguments: a.Arguments, ArgumentsTruncated: a.ArgumentsCut,
		Status: string(a.Status), RequestedBy: a.RequestedBy, Via: a.Via, RequestedAt: a.RequestedAt.UTC(),
		DecidedAt: a.DecidedAt, UsedAt: a.UsedAt, GrantedBy: string(rule.GrantedBy),
		CanApprove: a.Status == auxilia.ApprovalPending && run.CheckGrant(ctx, rule, a) == nil}
	if v.Arguments == nil {
		v.Arguments = map[string]any{}
	}
	if a.DecidedAt != nil {
		v.DecidedBy = &a.DecidedBy
	}
	return v
}

// list gives the approvals of the run's thread.
//
//	@Summary		List a run's approvals
//	@Description	The tool calls of the run's thread that needed a person's approval and came without one that counts (over the API without approval, or with one the agent's approval rule does not let the caller give; from an MCP client that cannot ask its person, or whose person's answer would not count), pending and decided, newest first (at most 200). A decision is used once, by the same call (thread, tool and arguments) repeated: approved, it goes ahead; denied, it is refused with 403 approval_denied. Each approval says who may approve it (`granted_by`, the agent's rule now) and whether the token reading the list may (`can_approve`).
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id	path		string	true	"Run id"	format(uuid)
//	@Success		200		{object}	approvalList
//	@Failure		401,404	{object}	Problem
//	@ID				listApprovals
//	@Router			/api/v1/runs/{run_id}/approvals [get]
func (h approvalsHandler) list(c echo.Context) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	found, rule, err := h.svc.ListApprovals(ctx, actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	out := approvalList{Items: make([]approvalView, len(found))}
	for i, a := range found {
		out.Items[i] = viewApproval(ctx, rule, a)
	}
	return c.JSON(http.StatusOK, out)
}

// decide records a person's decision on a pending approval.
//
//	@Summary		Approve or deny a tool call
//	@Description	A person's decision, recorded with who made it and when, and audited. The call, repeated with the same arguments, then goes ahead once (approve) or is refused once (deny). An approval already decided: 409. Who may approve is the agent's approval rule's to say (`can_approve` in the list): under `granted_by: someone_else` the token that made the call is refused, under `admin` a member token is, with 403 grant_not_allowed (audited as a refused `tool.approve`). Any token may deny: a denial lets nothing run.
//	@Tags			runs
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id		path		string				true	"Run id"	format(uuid)
//	@Param			approval_id	path		string				true	"Approval id"	format(uuid)
//	@Param			body		body		decisionRequest		true	"The decision"
//	@Success		200			{object}	approvalView
//	@Failure		400,401,403,404,409,415,422	{object}	Problem
//	@ID				decideApproval
//	@Router			/api/v1/runs/{run_id}/approvals/{approval_id}/decision [post]
func (h approvalsHandler) decide(c echo.Context) error {
	runID, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	approvalID, err := pathID(c, "approval_id", "approval")
	if err != nil {
		return err
	}
	var in decisionRequest
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	if in.Decision != "approve" && in.Decision != "deny" {
		var fe auxilia.FieldErrors
		fe.Add("decision", "must be approve or deny")
		return fe.Err()
	}
	ctx := c.Request().Context()
	a, rule, err := h.svc.Decide(ctx, actor(c).Workspace.ID, runID, approvalID, in.Decision == "approve")
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewApproval(ctx, rule, a))
}
