package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// AgentService is what the API needs of agents and their bindings.
type AgentService interface {
	Create(ctx context.Context, workspaceID string, spec auxilia.AgentSpec) (auxilia.Agent, error)
	Get(ctx context.Context, workspaceID, id string) (auxilia.Agent, error)
	List(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Agent], error)
	Patch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Agent, error)
	PreviewCreate(ctx context.Context, workspaceID string, spec auxilia.AgentSpec) (auxilia.Agent, error)
	PreviewPatch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Agent, error)
	Delete(ctx context.Context, workspaceID, id string, expect auxilia.Expect) error
	Bind(ctx context.Context, workspaceID, agentID, sandboxID string, tools map[string]string, approval *auxilia.ApprovalRule, expect auxilia.Expect) (auxilia.Binding, error)
	Binding(ctx context.Context, workspaceID, agentID string) (auxilia.Binding, error)
	Unbind(ctx context.Context, workspaceID, agentID string, expect auxilia.Expect) (int, error)
}

type agentsHandler struct{ svc AgentService }

func (h agentsHandler) routes(g routes, idem echo.MiddlewareFunc) {
	g.GET("/agents", h.list)
	g.POST("/agents", h.create, idem)
	g.GET("/agents/:id", h.get)
	g.PATCH("/agents/:id", h.patch)
	g.DELETE("/agents/:id", h.delete)
	g.PUT("/agents/:id/sandbox", h.bind)
	g.GET("/agents/:id/sandbox", h.binding)
	g.DELETE("/agents/:id/sandbox", h.unbind)
}

type agentView struct {
	ID          string       `json:"id" format:"uuid"`
	Name        string       `json:"name" example:"Analyst"`
	Description string       `json:"description" example:"Answers questions about our data"`
	Emoji       string       `json:"emoji" example:"📊"`
	Color       string       `json:"color" example:"#1f6feb"`
	Sandbox     *bindingView `json:"sandbox" extensions:"x-nullable"`
	// The tool that manages the agent, as given when it was made (such as auxilia-apply, which prunes only what it manages); "" when none does.
	ManagedBy string    `json:"managed_by" example:"auxilia-apply"`
	CreatedAt time.Time `json:"created_at" format:"date-time"`
	UpdatedAt time.Time `json:"updated_at" format:"date-time"`
} //@name Agent

type bindingView struct {
	SandboxID string            `json:"sandbox_id" format:"uuid"`
	Name      string            `json:"name" example:"Team OpenSandbox"`
	Provider  string            `json:"provider" extensions:"x-enum=providers"`
	URL       string            `json:"url"`
	Tools     map[string]string `json:"tools" example:"execute:always_allow,write_file:needs_approval"`
	Approval  approvalRuleView  `json:"approval"`
} //@name Binding

// approvalRuleView says who may grant the approvals a binding's tools need.
type approvalRuleView struct {
	// anyone: any token of the workspace, the one that made the call included; someone_else: another token than the one that made the call; admin: an admin token, the caller's own included.
	GrantedBy string `json:"granted_by" enums:"anyone,someone_else,admin"`
	// The caller's own word grants its call (Auxilia-Approval: granted, or the answer its MCP client's person gave) when granted_by lets the caller grant; false: only a decision in the console does.
	WithCall bool `json:"with_call"`
} //@name ApprovalRule

// approvalRuleInput is an approval rule as a binding is given it: what it
// leaves out is the default.
type approvalRuleInput struct {
	// Who may grant: anyone, someone_else (another token than the one that made the call) or admin (an admin token).
	GrantedBy *string `json:"granted_by" enums:"anyone,someone_else,admin" default:"anyone" binding:"optional"`
	// Whether the caller's own word on the call (Auxilia-Approval: granted, its MCP client's prompt) may grant it.
	WithCall *bool `json:"with_call" default:"true" binding:"optional"`
} //@name ApprovalRuleInput

type agentList list[agentView] //@name AgentList

type agentCreate struct {
	Name        string `json:"name" example:"Analyst" minLength:"1" maxLength:"255"`
	Description string `json:"description" maxLength:"1000" binding:"optional"`
	Emoji       string `json:"emoji" example:"📊" maxLength:"32" binding:"optional"`
	Color       string `json:"color" example:"#1f6feb" maxLength:"7" binding:"optional"`
	// The tool that manages the agent (1–64 of a-z, 0-9, '.', '_', '-'); it cannot change afterwards.
	ManagedBy string `json:"managed_by" example:"auxilia-apply" maxLength:"64" binding:"optional"`
} //@name AgentCreate

// agentPatch documents the merge patch; the handler reads it as raw JSON.
type agentPatch struct {
	Name        string `json:"name" minLength:"1" maxLength:"255" binding:"optional"`
	Description string `json:"description" binding:"optional" extensions:"x-nullable"`
	Emoji       string `json:"emoji" maxLength:"32" binding:"optional" extensions:"x-nullable"`
	Color       string `json:"color" maxLength:"7" binding:"optional" extensions:"x-nullable"`
} //@name AgentPatch

type bindingPut struct {
	SandboxID string             `json:"sandbox_id" format:"uuid"`
	Tools     map[string]string  `json:"tools" binding:"optional" example:"write_file:needs_approval"`
	Approval  *approvalRuleInput `json:"approval" binding:"optional"`
} //@name BindingPut

// rule is the approval rule the binding is given: the default, with what
// the request sets.
func (in bindingPut) rule() *auxilia.ApprovalRule {
	rule := auxilia.DefaultApprovalRule
	if in.Approval != nil && in.Approval.GrantedBy != nil {
		rule.GrantedBy = auxilia.Grantor(*in.Approval.GrantedBy)
	}
	if in.Approval != nil && in.Approval.WithCall != nil {
		rule.WithCall = *in.Approval.WithCall
	}
	return &rule
}

func viewBinding(b auxilia.Binding) bindingView {
	tools := make(map[string]string, len(b.Tools))
	for k, v := range b.Tools {
		tools[k] = string(v)
	}
	return bindingView{SandboxID: b.SandboxID, Name: b.SandboxName, Provider: b.Provider, URL: b.URL, Tools: tools,
		Approval: approvalRuleView{GrantedBy: string(b.Approval.GrantedBy), WithCall: b.Approval.WithCall}}
}

func viewAgent(a auxilia.Agent) agentView {
	v := agentView{ID: a.ID, Name: a.Name, Description: a.Description, Emoji: a.Emoji, Color: a.Color, ManagedBy: a.ManagedBy,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.Binding != nil {
		b := viewBinding(*a.Binding)
		v.Sandbox = &b
	}
	return v
}

func writeAgent(c echo.Context, status int, a auxilia.Agent) error {
	setETag(c, a.Version)
	return c.JSON(status, viewAgent(a))
}

// create adds an agent.
//
//	@Summary		Create an agent
//	@Description	With dry_run=true the agent is validated and the answer is the one the request would get (201 with the agent as it would be, its id one it would be given, or the same 422), but nothing is saved, audited or replayed by an Idempotency-Key.
//	@Tags			agents
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			dry_run			query		bool		false	"Validate and answer, saving nothing"
//	@Param			Idempotency-Key	header		string		false	"Makes the request safe to retry"	maxLength(255)
//	@Param		body			body		agentCreate	true	"The agent"
//	@Success	201				{object}	agentView
//	@Header		201				{string}	ETag		"The agent's version"
//	@Header		201				{string}	Location	"The new agent"
//	@Failure	400,401,409,413,415,422	{object}	Problem
//	@ID			createAgent
//	@Router		/api/v1/agents [post]
func (h agentsHandler) create(c echo.Context) error {
	var in agentCreate
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	dryRun, err := boolQuery(c, "dry_run")
	if err != nil {
		return err
	}
	spec := auxilia.AgentSpec{Name: in.Name, Description: in.Description, Emoji: in.Emoji, Color: in.Color, ManagedBy: in.ManagedBy}
	if dryRun {
		a, err := h.svc.PreviewCreate(c.Request().Context(), actor(c).Workspace.ID, spec)
		if err != nil {
			return err
		}
		return writeAgent(c, http.StatusCreated, a)
	}
	a, err := h.svc.Create(c.Request().Context(), actor(c).Workspace.ID, spec)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/agents/"+a.ID)
	return writeAgent(c, http.StatusCreated, a)
}

// list pages through the workspace's agents.
//
//	@Summary	List agents
//	@Tags		agents
//	@Produce	json
//	@Security	BearerAuth
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	agentList
//	@Failure	401,422		{object}	Problem
//	@ID			listAgents
//	@Router		/api/v1/agents [get]
func (h agentsHandler) list(c echo.Context) error {
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.List(c.Request().Context(), actor(c).Workspace.ID, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, agentList(listOf(page, viewAgent)))
}

// get reads an agent, with its sandbox.
//
//	@Summary	Get an agent
//	@Tags		agents
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id		path		string	true	"Agent id"	format(uuid)
//	@Success	200		{object}	agentView
//	@Header		200		{string}	ETag	"The agent's version"
//	@Failure	401,404	{object}	Problem
//	@ID			getAgent
//	@Router		/api/v1/agents/{id} [get]
func (h agentsHandler) get(c echo.Context) error {
	id, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	a, err := h.svc.Get(c.Request().Context(), actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	return writeAgent(c, http.StatusOK, a)
}

// patch edits an agent with a JSON merge patch.
//
//	@Summary		Edit an agent
//	@Description	A JSON merge patch (RFC 7396). With dry_run=true the answer is the one the patch would get (200 with the agent as it would be, or the same 412 or 422), and nothing is saved or audited.
//	@Tags			agents
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string		true	"Agent id"	format(uuid)
//	@Param			dry_run		query		bool		false	"Validate and answer, saving nothing"
//	@Param		If-Match	header		string		false	"The ETag last read: the edit fails with 412 if the agent changed since"
//	@Param		body		body		agentPatch	true	"The changes (null resets a field to its default)"
//	@Success	200			{object}	agentView
//	@Header		200			{string}	ETag	"The agent's new version"
//	@Failure	400,401,404,412,413,415,422	{object}	Problem
//	@ID			updateAgent
//	@Router		/api/v1/agents/{id} [patch]
func (h agentsHandler) patch(c echo.Context) error {
	id, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	body, err := readJSONBody(c)
	if err != nil {
		return err
	}
	if err := decodeJSON(body, new(json.RawMessage)); err != nil {
		return err
	}
	patch, err := dryRunOr(c, h.svc.Patch, h.svc.PreviewPatch)
	if err != nil {
		return err
	}
	a, err := patch(c.Request().Context(), actor(c).Workspace.ID, id, body, ifMatch(c))
	if err != nil {
		return err
	}
	return writeAgent(c, http.StatusOK, a)
}

// delete removes an agent with its binding and threads.
//
//	@Summary	Delete an agent
//	@Tags		agents
//	@Security	BearerAuth
//	@Param		id			path	string	true	"Agent id"	format(uuid)
//	@Param		If-Match	header	string	false	"The ETag last read: the delete fails with 412 if the agent changed since"
//	@Success	204
//	@Failure	401,404,412	{object}	Problem
//	@ID			deleteAgent
//	@Router		/api/v1/agents/{id} [delete]
func (h agentsHandler) delete(c echo.Context) error {
	id, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	if err := h.svc.Delete(c.Request().Context(), actor(c).Workspace.ID, id, ifMatch(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// bind gives the agent a sandbox, replacing any earlier one.
//
//	@Summary		Bind a sandbox to an agent
//	@Description	An agent has at most one sandbox: this replaces any earlier binding. Tools left out of `tools` are always allowed. `approval` says who may grant the approvals its `needs_approval` tools ask for; what it leaves out is the default (`granted_by: anyone`, `with_call: true`: any token, with the call or in the console). A rule other than the default is an admin's: a member token that sets one, or changes or removes a binding that has one, is refused (403), so that the token making an agent's calls cannot loosen who grants them.
//	@Tags			agents
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string		true	"Agent id"	format(uuid)
//	@Param			If-Match	header		string		false	"The agent's ETag last read: the binding fails with 412 if the agent changed since"
//	@Param			body		body		bindingPut	true	"The sandbox and the tools' policies"
//	@Success		200			{object}	bindingView
//	@Header			200			{string}	ETag	"The agent's new version (a binding is part of its agent)"
//	@Failure		400,401,403,404,412,413,415,422	{object}	Problem
//	@ID				bindSandbox
//	@Router			/api/v1/agents/{id}/sandbox [put]
func (h agentsHandler) bind(c echo.Context) error {
	id, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	var in bindingPut
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	b, err := h.svc.Bind(c.Request().Context(), actor(c).Workspace.ID, id, in.SandboxID, in.Tools, in.rule(), ifMatch(c))
	if err != nil {
		return err
	}
	setETag(c, b.Version)
	return c.JSON(http.StatusOK, viewBinding(b))
}

// binding reads the agent's sandbox binding.
//
//	@Summary	Get an agent's sandbox binding
//	@Tags		agents
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id		path		string	true	"Agent id"	format(uuid)
//	@Success	200		{object}	bindingView
//	@Header		200		{string}	ETag	"The agent's version (a binding is part of its agent)"
//	@Failure	401,404	{object}	Problem
//	@ID			getBinding
//	@Router		/api/v1/agents/{id}/sandbox [get]
func (h agentsHandler) binding(c echo.Context) error {
	id, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	b, err := h.svc.Binding(c.Request().Context(), actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	setETag(c, b.Version)
	return c.JSON(http.StatusOK, viewBinding(b))
}

// unbind takes the agent's sandbox away.
//
//	@Summary		Remove an agent's sandbox
//	@Description	A binding whose approval rule is not the default is removed only by an admin token (a member: 403).
//	@Tags			agents
//	@Security		BearerAuth
//	@Param			id			path	string	true	"Agent id"	format(uuid)
//	@Param			If-Match	header	string	false	"The agent's ETag last read: the unbinding fails with 412 if the agent changed since"
//	@Success		204
//	@Header			204			{string}	ETag	"The agent's new version (a binding is part of its agent)"
//	@Failure		401,403,404,412	{object}	Problem
//	@ID				unbindSandbox
//	@Router			/api/v1/agents/{id}/sandbox [delete]
func (h agentsHandler) unbind(c echo.Context) error {
	id, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	version, err := h.svc.Unbind(c.Request().Context(), actor(c).Workspace.ID, id, ifMatch(c))
	if err != nil {
		return err
	}
	setETag(c, version)
	return c.NoContent(http.StatusNoContent)
}
