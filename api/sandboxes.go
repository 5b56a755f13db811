package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/labstack/echo/v4"
)

// SandboxService is what the API needs of the sandbox registry.
type SandboxService interface {
	Create(ctx context.Context, workspaceID string, in sandbox.Input) (auxilia.Sandbox, error)
	Get(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, error)
	List(ctx context.Context, workspaceID, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error)
	Patch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Sandbox, error)
	PreviewCreate(ctx context.Context, workspaceID string, in sandbox.Input) (auxilia.Sandbox, error)
	PreviewPatch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Sandbox, error)
	Delete(ctx context.Context, workspaceID, id string, expect auxilia.Expect, detach bool) error
	Agents(ctx context.Context, workspaceID, id string, req auxilia.PageRequest) (auxilia.Page[auxilia.AgentRef], error)
	SecretHint(ctx context.Context, workspaceID, id string) (auxilia.SecretHint, error)
	ProbeInput(ctx context.Context, workspaceID string, in sandbox.Input) (sandbox.ProbeResult, error)
	ProbeSaved(ctx context.Context, workspaceID, id string, patch json.RawMessage) (sandbox.ProbeResult, error)
	Catalogue() []sandbox.ProviderInfo
}

// PoolService tells how a sandbox's warm pool is doing.
type PoolService interface {
	PoolStatus(ctx context.Context, sb auxilia.Sandbox) (auxilia.PoolStatus, error)
}

// NetworkService applies a sandbox's edited network rules to the live
// instances its threads work in.
type NetworkService interface {
	UpdateNetwork(ctx context.Context, sb auxilia.Sandbox) ([]run.NetworkUpdate, error)
}

// InstanceCounter counts sandboxes' live instances.
type InstanceCounter interface {
	ActiveInstanceCounts(ctx context.Context, workspaceID string, sandboxIDs []string) (map[string]int, error)
}

type sandboxesHandler struct {
	svc       SandboxService
	pools     PoolService     // nil: no sandbox shows a pool
	networks  NetworkService  // nil: an edit applies its network rules to no instance
	instances InstanceCounter // nil: lists show no instance counts
}

func (h sandboxesHandler) routes(g routes, idem echo.MiddlewareFunc) {
	g.GET("/providers", h.providers)
	g.GET("/sandboxes", h.list)
	g.POST("/sandboxes", h.create, adminOnly, idem)
	g.POST("/sandboxes/probe", h.probeInput, adminOnly)
	g.GET("/sandboxes/:id", h.get)
	g.PATCH("/sandboxes/:id", h.patch, adminOnly)
	g.DELETE("/sandboxes/:id", h.delete, adminOnly)
	g.GET("/sandboxes/:id/secret-hint", h.secretHint, adminOnly)
	g.GET("/sandboxes/:id/agents", h.agents)
	g.POST("/sandboxes/:id/probe", h.probeSaved, adminOnly)
}

type sandboxView struct {
	ID          string          `json:"id" format:"uuid"`
	Name        string          `json:"name" example:"Team OpenSandbox"`
	Description string          `json:"description" example:"Python 3.12 with pandas"`
	Provider    string          `json:"provider" extensions:"x-enum=providers"`
	URL         string          `json:"url" example:"http://sandbox.internal:8083"`
	HasSecret   bool            `json:"has_secret"`
	Config      json.RawMessage `json:"config" swaggertype:"object"`
	Health      healthView      `json:"health"`
	// The tool that manages the sandbox, as given when it was made (such as auxilia-apply, which prunes only what it manages); "" when none does.
	ManagedBy string `json:"managed_by" example:"auxilia-apply"`
	// Pool is shown when one sandbox is read, not in lists.
	Pool *poolView `json:"pool,omitempty" binding:"optional"`
	// LiveInstances is shown in lists, to admins: how many of its instances are being created, live or paused now, warm pool's included (its page lists them).
	LiveInstances *int `json:"live_instances,omitempty" binding:"optional" minimum:"0"`
	// NetworkUpdate is shown in the answer to an edit (not a dry run) that changed config.network: what became of the new rules in each live instance threads work in.
	NetworkUpdate *networkUpdateView `json:"network_update,omitempty" binding:"optional"`
	CreatedAt     time.Time          `json:"created_at" format:"date-time"`
	UpdatedAt     time.Time          `json:"updated_at" format:"date-time"`
} //@name Sandbox

// poolView is how the sandbox's warm pool is doing: off (size 0), ready,
// creating (some on their way), waiting (short, with none on the way yet:
// the next pass of the pool job makes them), failing (creates fail; it waits until retry_at) or stopped
// (too many failures in a row: it makes nothing until the sandbox is
// edited or probed healthy). detail says why it fails, stopped or waits on
// a quota, and how many of the ready instances an exhausted instance-hours
// quota paused (a run that takes one resumes it).
type poolView struct {
	State    string     `json:"state" enums:"off,ready,creating,waiting,failing,stopped"`
	Size     int        `json:"size" minimum:"0"`
	Ready    int        `json:"ready" minimum:"0"`
	Creating int        `json:"creating" minimum:"0"`
	Failures int        `json:"failures" minimum:"0"`
	Detail   string     `json:"detail"`
	RetryAt  *time.Time `json:"retry_at" format:"date-time" extensions:"x-nullable"`
} //@name SandboxPool

type healthView struct {
	Status    string      `json:"status" enums:"ok,failed,unknown"`
	CheckedAt *time.Time  `json:"checked_at" format:"date-time" extensions:"x-nullable"`
	LatencyMS *int        `json:"latency_ms" extensions:"x-nullable"`
	Detail    string      `json:"detail"`
	History   []probeView `json:"history"`
} //@name SandboxHealth

type probeView struct {
	At        time.Time `json:"at" format:"date-time"`
	OK        bool      `json:"ok"`
	LatencyMS int       `json:"latency_ms"`
	// Why a failed probe failed (network, auth, config or provider); "" when it succeeded.
	Reason string `json:"reason" example:"network"`
	// The provider's words for a failure (at most 300 bytes); "" when it succeeded.
	Detail string `json:"detail"`
} //@name ProbeRecord

type sandboxList list[sandboxView] //@name SandboxList

type sandboxCreate struct {
	Name        string          `json:"name" example:"Team OpenSandbox" minLength:"1" maxLength:"255"`
	Description string          `json:"description" maxLength:"255" binding:"optional"`
	Provider    string          `json:"provider" extensions:"x-enum=providers"`
	URL         string          `json:"url" example:"sandbox.internal:8083" binding:"optional"`
	Secret      *string         `json:"secret" binding:"optional" extensions:"x-nullable"`
	Config      json.RawMessage `json:"config" swaggertype:"object" binding:"optional"`
	// The tool that manages the sandbox (1–64 of a-z, 0-9, '.', '_', '-'); it cannot change afterwards.
	ManagedBy string `json:"managed_by" example:"auxilia-apply" maxLength:"64" binding:"optional"`
} //@name SandboxCreate

// sandboxPatch documents the merge patch; the handler reads it as raw JSON.
type sandboxPatch struct {
	Name        string          `json:"name" minLength:"1" maxLength:"255" binding:"optional"`
	Description string          `json:"description" maxLength:"255" binding:"optional" extensions:"x-nullable"`
	Provider    string          `json:"provider" binding:"optional" extensions:"x-enum=providers"`
	URL         string          `json:"url" binding:"optional" extensions:"x-nullable"`
	Secret      string          `json:"secret" binding:"optional" extensions:"x-nullable"`
	Config      json.RawMessage `json:"config" swaggertype:"object" binding:"optional" extensions:"x-nullable"`
} //@name SandboxPatch

// networkUpdateView says, per live instance of the sandbox's threads
// (paused ones included), whether it took the edited network rules.
type networkUpdateView struct {
	Instances []instanceNetworkView `json:"instances"`
} //@name NetworkUpdate

// instanceNetworkView is what became of the rules in one instance: applied
// (it enforces them now), next_start (it takes them when it resumes, or the
// thread's next instance does: reason says which) or failed (the provider
// refused or did not answer, reason says which; it keeps its rules until
// it is paused and resumed, or replaced).
type instanceNetworkView struct {
	// The provider's id of the instance, as a thread shows it.
	InstanceID string `json:"instance_id" example:"loc-3f2a9c1b0d4e5f60"`
	Outcome    string `json:"outcome" enums:"applied,next_start,failed"`
	Reason     string `json:"reason,omitempty" binding:"optional" example:"it is paused: it takes the rules when it resumes"`
} //@name InstanceNetworkUpdate

type secretHintView struct {
	IsSet  bool    `json:"is_set"`
	Last4  *string `json:"last4" example:"x9Qz" extensions:"x-nullable"`
	Length *int    `json:"length" example:"40" extensions:"x-nullable"`
} //@name SecretHint

type probeResultView struct {
	OK        bool   `json:"ok"`
	LatencyMS int    `json:"latency_ms"`
	Reason    string `json:"reason,omitempty" enums:"network,auth,config,quota,provider"`
	Detail    string `json:"detail,omitempty"`
} //@name ProbeResult

func viewSandbox(sb auxilia.Sandbox) sandboxView {
	history := make([]probeView, len(sb.Health.History))
	for i, p := range sb.Health.History {
		history[i] = probeView(p)
	}
	return sandboxView{
		ID: sb.ID, Name: sb.Name, Description: sb.Description, Provider: sb.Provider, URL: sb.URL,
		HasSecret: sb.Secret.IsSet, Config: sb.Config, ManagedBy: sb.ManagedBy,
		Health: healthView{Status: string(sb.Health.Status), CheckedAt: sb.Health.CheckedAt,
			LatencyMS: sb.Health.LatencyMS, Detail: sb.Health.Detail, History: history},
		CreatedAt: sb.CreatedAt, UpdatedAt: sb.UpdatedAt,
	}
}

func (in sandboxCreate) input() sandbox.Input {
	return sandbox.Input{Name: in.Name, Description: in.Description, Provider: in.Provider, URL: in.URL,
		Secret: in.Secret, Config: in.Config, ManagedBy: in.ManagedBy}
}

// writeSandbox answers with a sandbox and its ETag.
func writeSandbox(c echo.Context, status int, sb auxilia.Sandbox) error {
	setETag(c, sb.Version)
	return c.JSON(status, viewSandbox(sb))
}

// create registers a sandbox.
//
//	@Summary		Register a sandbox
//	@Description	With dry_run=true the sandbox is validated as a whole, the server's rules (blocked addresses, allowed host paths) and a taken name included, and the answer is the one the request would get (201 with the sandbox as it would be, its id one it would be given, or the same 409 or 422), but nothing is saved, audited or replayed by an Idempotency-Key.
//	@Tags			sandboxes
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			dry_run			query		bool			false	"Validate and answer, saving nothing"
//	@Param			Idempotency-Key	header		string			false	"Makes the request safe to retry"	maxLength(255)
//	@Param		body			body		sandboxCreate	true	"The sandbox; config keys left out take their defaults"
//	@Success	201				{object}	sandboxView
//	@Header		201				{string}	ETag		"The sandbox's version"
//	@Header		201				{string}	Location	"The new sandbox"
//	@Failure	400,401,403,409,413,415,422	{object}	Problem
//	@ID			createSandbox
//	@Router		/api/v1/sandboxes [post]
func (h sandboxesHandler) create(c echo.Context) error {
	var in sandboxCreate
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	dryRun, err := boolQuery(c, "dry_run")
	if err != nil {
		return err
	}
	if dryRun {
		sb, err := h.svc.PreviewCreate(c.Request().Context(), actor(c).Workspace.ID, in.input())
		if err != nil {
			return err
		}
		return writeSandbox(c, http.StatusCreated, sb)
	}
	sb, err := h.svc.Create(c.Request().Context(), actor(c).Workspace.ID, in.input())
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/sandboxes/"+sb.ID)
	return writeSandbox(c, http.StatusCreated, sb)
}

// list pages through the workspace's sandboxes.
//
//	@Summary	List sandboxes
//	@Tags		sandboxes
//	@Produce	json
//	@Security	BearerAuth
//	@Param		name		query		string	false	"Only the sandbox with exactly this name"
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	sandboxList
//	@Failure	401,422		{object}	Problem
//	@ID			listSandboxes
//	@Router		/api/v1/sandboxes [get]
func (h sandboxesHandler) list(c echo.Context) error {
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	ctx, a := c.Request().Context(), actor(c)
	page, err := h.svc.List(ctx, a.Workspace.ID, c.QueryParam("name"), req)
	if err != nil {
		return err
	}
	list := sandboxList(listOf(page, viewSandbox))
	if h.instances != nil && a.Role == auxilia.RoleAdmin && len(list.Items) > 0 {
		ids := make([]string, len(list.Items))
		for i, v := range list.Items {
			ids[i] = v.ID
		}
		counts, err := h.instances.ActiveInstanceCounts(ctx, a.Workspace.ID, ids)
		if err != nil {
			return err
		}
		for i := range list.Items {
			n := counts[list.Items[i].ID]
			list.Items[i].LiveInstances = &n
		}
	}
	return c.JSON(http.StatusOK, list)
}

// get reads one sandbox.
//
//	@Summary	Get a sandbox
//	@Tags		sandboxes
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id		path		string	true	"Sandbox id"	format(uuid)
//	@Success	200		{object}	sandboxView
//	@Header		200		{string}	ETag	"The sandbox's version"
//	@Failure	401,404	{object}	Problem
//	@ID			getSandbox
//	@Router		/api/v1/sandboxes/{id} [get]
func (h sandboxesHandler) get(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	sb, err := h.svc.Get(c.Request().Context(), actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	view := viewSandbox(sb)
	if h.pools != nil {
		st, err := h.pools.PoolStatus(c.Request().Context(), sb)
		if err != nil {
			return err
		}
		view.Pool = &poolView{State: string(st.State), Size: st.Size, Ready: st.Ready, Creating: st.Creating,
			Failures: st.Failures, Detail: st.Detail, RetryAt: st.RetryAt}
	}
	setETag(c, sb.Version)
	return c.JSON(http.StatusOK, view)
}

// patch edits a sandbox with a JSON merge patch.
//
//	@Summary		Edit a sandbox
//	@Description	A JSON merge patch (RFC 7396): members left out stay as they are; null resets one to its default. `secret` left out or "" keeps the stored one and null clears it (where the provider allows none); a `url` on another origin (scheme, host or port) than the stored one needs the secret given again in the same patch, else 422 on `secret`, since a stored secret only goes where it was entered for. `provider` cannot change. The result is validated as a whole. With dry_run=true the answer is the one the patch would get (200 with the sandbox as it would be, or the same 409, 412 or 422), and nothing is saved, applied or audited. An edit that changes `config.network` is applied to the live instances the sandbox's threads work in, where the provider can change a running instance's rules (eight at a time, each within 20 s, all within a minute), and `network_update` says per instance whether it took them (applied), takes them when it resumes or in the thread's next instance (next_start), or failed; the edit is saved whatever the instances answer, and the outcomes are audited (sandbox.network).
//	@Tags			sandboxes
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string			true	"Sandbox id"	format(uuid)
//	@Param			dry_run		query		bool			false	"Validate and answer, saving nothing"
//	@Param			If-Match	header		string			false	"The ETag last read: the edit fails with 412 if the sandbox changed since"
//	@Param			body		body		sandboxPatch	true	"The changes"
//	@Success		200			{object}	sandboxView
//	@Header			200			{string}	ETag	"The sandbox's new version"
//	@Failure		400,401,403,404,409,412,413,415,422	{object}	Problem
//	@ID				updateSandbox
//	@Router			/api/v1/sandboxes/{id} [patch]
func (h sandboxesHandler) patch(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
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
	dryRun, err := boolQuery(c, "dry_run")
	if err != nil {
		return err
	}
	ctx, ws := c.Request().Context(), actor(c).Workspace.ID
	if dryRun || h.networks == nil {
		patch := h.svc.Patch
		if dryRun {
			patch = h.svc.PreviewPatch
		}
		sb, err := patch(ctx, ws, id, body, ifMatch(c))
		if err != nil {
			return err
		}
		return writeSandbox(c, http.StatusOK, sb)
	}
	before, err := h.svc.Get(ctx, ws, id)
	if err != nil {
		return err
	}
	sb, err := h.svc.Patch(ctx, ws, id, body, ifMatch(c))
	if err != nil {
		return err
	}
	view := viewSandbox(sb)
	if run.NetworkChanged(before, sb) {
		updates, err := h.networks.UpdateNetwork(ctx, sb)
		if err != nil {
			return err
		}
		view.NetworkUpdate = viewNetworkUpdate(updates)
	}
	setETag(c, sb.Version)
	return c.JSON(http.StatusOK, view)
}

func viewNetworkUpdate(updates []run.NetworkUpdate) *networkUpdateView {
	v := &networkUpdateView{Instances: make([]instanceNetworkView, len(updates))}
	for i, u := range updates {
		v.Instances[i] = instanceNetworkView{InstanceID: u.InstanceRef, Outcome: u.Outcome, Reason: u.Reason}
	}
	return v
}

// delete removes a sandbox.
//
//	@Summary		Delete a sandbox
//	@Description	While agents are bound to the sandbox this answers 409 sandbox_in_use with their list in `agents`, unless detach_agents=true: then the agents are unbound (they run on without code execution), the sandbox's instances are released, the runs open on it end (`completed`, their `notice` saying the sandbox was deleted) and the sandbox is deleted, in one transaction.
//	@Tags			sandboxes
//	@Security		BearerAuth
//	@Param			id				path	string	true	"Sandbox id"	format(uuid)
//	@Param			detach_agents	query	bool	false	"Unbind the agents that use the sandbox"
//	@Param			If-Match		header	string	false	"The ETag last read: the delete fails with 412 if the sandbox changed since"
//	@Success		204
//	@Failure		401,403,404,409,412,422	{object}	Problem
//	@ID				deleteSandbox
//	@Router			/api/v1/sandboxes/{id} [delete]
func (h sandboxesHandler) delete(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	detach, err := boolQuery(c, "detach_agents")
	if err != nil {
		return err
	}
	if err := h.svc.Delete(c.Request().Context(), actor(c).Workspace.ID, id, ifMatch(c), detach); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

type agentRefView struct {
	ID    string `json:"id" format:"uuid"`
	Name  string `json:"name" example:"Analyst"`
	Emoji string `json:"emoji" example:"📊"`
	Color string `json:"color" example:"#1f6feb"`
} //@name AgentRef

type agentRefList list[agentRefView] //@name AgentRefList

// agents lists the agents bound to a sandbox.
//
//	@Summary	Agents that use a sandbox
//	@Tags		sandboxes
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id			path		string	true	"Sandbox id"	format(uuid)
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	agentRefList
//	@Failure	401,404,422	{object}	Problem
//	@ID			listSandboxAgents
//	@Router		/api/v1/sandboxes/{id}/agents [get]
func (h sandboxesHandler) agents(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.Agents(c.Request().Context(), actor(c).Workspace.ID, id, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, agentRefList(listOf(page, func(a auxilia.AgentRef) agentRefView { return agentRefView(a) })))
}

// secretHint says which secret is stored without revealing it.
//
//	@Summary	What may be shown of a sandbox's secret
//	@Tags		sandboxes
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id			path		string	true	"Sandbox id"	format(uuid)
//	@Success	200			{object}	secretHintView
//	@Failure	401,403,404	{object}	Problem
//	@ID			getSecretHint
//	@Router		/api/v1/sandboxes/{id}/secret-hint [get]
func (h sandboxesHandler) secretHint(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	hint, err := h.svc.SecretHint(c.Request().Context(), actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	out := secretHintView{IsSet: hint.IsSet}
	if hint.IsSet {
		out.Length = &hint.Length
		if hint.Last4 != "" {
			out.Last4 = &hint.Last4
		}
	}
	return c.JSON(http.StatusOK, out)
}

// probeInput tests a configuration before it is saved.
//
//	@Summary		Test a sandbox configuration without saving it
//	@Description	Saves nothing; the probe is recorded in the audit log as `sandbox.probe`.
//	@Tags			sandboxes
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			body	body		sandboxCreate	true	"The sandbox as it would be created"
//	@Success		200		{object}	probeResultView
//	@Failure		400,401,403,413,415,422	{object}	Problem
//	@ID				probeConfig
//	@Router			/api/v1/sandboxes/probe [post]
func (h sandboxesHandler) probeInput(c echo.Context) error {
	var in sandboxCreate
	if err := bindJSON(c, &in); err != nil {
		return err
	}
	res, err := h.svc.ProbeInput(c.Request().Context(), actor(c).Workspace.ID, in.input())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, probeResultView(res))
}

// probeSaved tests a saved sandbox.
//
//	@Summary		Test a saved sandbox
//	@Description	Without a body, probes the sandbox as saved and records the outcome as its health. With a body (a merge patch, as for PATCH), probes the sandbox as the patch would leave it and saves nothing, except that a patch leaving url, secret and config as saved (changing at most name and description) is a probe of the saved sandbox and is recorded as its health too; as for PATCH, a `url` on another origin needs the secret given again (else 422 on `secret`, and nothing is sent). Every probe is recorded in the audit log as `sandbox.probe`.
//	@Tags			sandboxes
//	@Accept			json
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id		path		string			true	"Sandbox id"	format(uuid)
//	@Param			body	body		sandboxPatch	false	"Changes to try"
//	@Success		200		{object}	probeResultView
//	@Failure		400,401,403,404,413,415,422	{object}	Problem
//	@ID				probeSandbox
//	@Router			/api/v1/sandboxes/{id}/probe [post]
func (h sandboxesHandler) probeSaved(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	var patch json.RawMessage
	if c.Request().ContentLength != 0 {
		body, err := readJSONBody(c)
		if err != nil {
			return err
		}
		if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && string(trimmed) != "null" {
			if err := decodeJSON(body, new(json.RawMessage)); err != nil {
				return err
			}
			patch = body
		}
	}
	res, err := h.svc.ProbeSaved(c.Request().Context(), actor(c).Workspace.ID, id, patch)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, probeResultView(res))
}
