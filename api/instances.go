package api

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// InstanceService lists and acts on sandboxes' live instances.
type InstanceService interface {
	ListInstances(ctx context.Context, workspaceID string, f auxilia.InstanceFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.InstanceUse], error)
	ActiveInstanceCounts(ctx context.Context, workspaceID string, sandboxIDs []string) (map[string]int, error)
	PauseInstance(ctx context.Context, workspaceID, sandboxID, id string) (auxilia.Instance, error)
	ResumeInstance(ctx context.Context, workspaceID, sandboxID, id string) (auxilia.Instance, error)
	DestroyInstance(ctx context.Context, workspaceID, sandboxID, id string) error
}

type instancesHandler struct{ svc InstanceService }

func (h instancesHandler) routes(g routes) {
	g.GET("/instances", h.listAll, adminOnly)
	g.GET("/sandboxes/:id/instances", h.list, adminOnly)
	g.POST("/sandboxes/:id/instances/:instance_id/pause", h.pause, adminOnly)
	g.POST("/sandboxes/:id/instances/:instance_id/resume", h.resume, adminOnly)
	g.DELETE("/sandboxes/:id/instances/:instance_id", h.destroy, adminOnly)
}

// instanceView is one of a sandbox's active instances: state is creating,
// live or paused; thread is null for a warm pool's instance, which no
// thread has claimed yet.
type instanceView struct {
	ID          string `json:"id" format:"uuid"`
	SandboxID   string `json:"sandbox_id" format:"uuid"`
	SandboxName string `json:"sandbox_name" example:"Team box"`
	// The provider's own id for it; "" while it is being created.
	ProviderRef string              `json:"provider_ref" example:"sbx-4f2a"`
	State       string              `json:"state" enums:"creating,live,paused"`
	Pooled      bool                `json:"pooled"`
	Thread      *instanceThreadView `json:"thread" extensions:"x-nullable"`
	CreatedAt   time.Time           `json:"created_at" format:"date-time"`
	// The thread's last run start or tool call; null for a pooled instance or before the first.
	LastUsedAt *time.Time `json:"last_used_at" format:"date-time" extensions:"x-nullable"`
	PausedAt   *time.Time `json:"paused_at" format:"date-time" extensions:"x-nullable"`
} //@name SandboxInstance

type instanceThreadView struct {
	AgentID   string `json:"agent_id" format:"uuid"`
	AgentName string `json:"agent_name" example:"Analyst"`
	ThreadID  string `json:"thread_id" example:"conv-42"`
} //@name InstanceThread

type instanceList list[instanceView] //@name SandboxInstanceList

func viewInstance(u auxilia.InstanceUse) instanceView {
	v := instanceView{ID: u.ID, SandboxID: u.SandboxID, SandboxName: u.SandboxName, ProviderRef: u.ProviderRef, State: string(u.Status), Pooled: u.ThreadID == "",
		CreatedAt: u.CreatedAt, LastUsedAt: u.LastActivityAt, PausedAt: u.PausedAt}
	if u.Status == auxilia.InstanceLive && u.PausedAt != nil {
		v.State = "paused"
	}
	if u.ThreadID != "" {
		v.Thread = &instanceThreadView{AgentID: u.AgentID, AgentName: u.AgentName, ThreadID: u.ThreadKey}
	}
	return v
}

// list lists a sandbox's active instances.
//
//	@Summary		A sandbox's live instances
//	@Description	The instances of the sandbox that are being created, live or paused, each with the thread it works for (null for a warm pool's instance), by id.
//	@Tags			sandboxes
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string	true	"Sandbox id"	format(uuid)
//	@Param			page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param			page_token	query		string	false	"next_page_token of the previous page"
//	@Success		200			{object}	instanceList
//	@Failure		401,403,404,422	{object}	Problem
//	@ID				listSandboxInstances
//	@Router			/api/v1/sandboxes/{id}/instances [get]
func (h instancesHandler) list(c echo.Context) error {
	id, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.ListInstances(c.Request().Context(), actor(c).Workspace.ID, auxilia.InstanceFilter{SandboxID: id}, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, instanceList(listOf(page, viewInstance)))
}

// listAll lists the workspace's active instances.
//
//	@Summary		The workspace's live instances
//	@Description	The instances of every sandbox of the workspace that are being created, live or paused, each with its sandbox and the thread it works for (null for a warm pool's instance), by id. Each filter narrows the list; 422 names a filter that is not a uuid or a state.
//	@Tags			sandboxes
//	@Produce		json
//	@Security		BearerAuth
//	@Param			sandbox_id	query		string	false	"Only this sandbox's instances"	format(uuid)
//	@Param			agent_id	query		string	false	"Only the instances of this agent's threads"	format(uuid)
//	@Param			state		query		string	false	"Only instances in this state"	Enums(creating, live, paused)
//	@Param			page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param			page_token	query		string	false	"next_page_token of the previous page"
//	@Success		200			{object}	instanceList
//	@Failure		401,403,422	{object}	Problem
//	@ID				listInstances
//	@Router			/api/v1/instances [get]
func (h instancesHandler) listAll(c echo.Context) error {
	var fe auxilia.FieldErrors
	var f auxilia.InstanceFilter
	queryID(c, &fe, "sandbox_id", &f.SandboxID)
	queryID(c, &fe, "agent_id", &f.AgentID)
	if f.State = c.QueryParam("state"); f.State != "" && !slices.Contains(auxilia.InstanceStates, f.State) {
		fe.Add("state", "must be one of %s", strings.Join(auxilia.InstanceStates, ", "))
	}
	req, err := filteredPage(c, &fe)
	if err != nil {
		return err
	}
	page, err := h.svc.ListInstances(c.Request().Context(), actor(c).Workspace.ID, f, req)
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		// A sandbox of another workspace, or deleted: none of its instances are this workspace's.
		page, err = auxilia.Page[auxilia.InstanceUse]{Items: []auxilia.InstanceUse{}}, nil
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, instanceList(listOf(page, viewInstance)))
}

// pause pauses an instance.
//
//	@Summary		Pause an instance
//	@Description	Pauses a live instance at its provider now, keeping its files (and memory where the provider can); the thread's next run resumes it. 409 when the provider cannot pause, or the instance is being created or paused already. Audited as `instance.pause` on the sandbox.
//	@Tags			sandboxes
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string	true	"Sandbox id"	format(uuid)
//	@Param			instance_id	path		string	true	"Instance id"	format(uuid)
//	@Success		200			{object}	instanceView
//	@Failure		401,403,404,409	{object}	Problem
//	@ID				pauseSandboxInstance
//	@Router			/api/v1/sandboxes/{id}/instances/{instance_id}/pause [post]
func (h instancesHandler) pause(c echo.Context) error {
	return h.act(c, h.svc.PauseInstance)
}

// resume resumes a paused instance.
//
//	@Summary		Resume an instance
//	@Description	Resumes a paused instance at its provider. 409 when it is not paused or is gone at the provider. Audited as `instance.resume` on the sandbox.
//	@Tags			sandboxes
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string	true	"Sandbox id"	format(uuid)
//	@Param			instance_id	path		string	true	"Instance id"	format(uuid)
//	@Success		200			{object}	instanceView
//	@Failure		401,403,404,409	{object}	Problem
//	@ID				resumeSandboxInstance
//	@Router			/api/v1/sandboxes/{id}/instances/{instance_id}/resume [post]
func (h instancesHandler) resume(c echo.Context) error {
	return h.act(c, h.svc.ResumeInstance)
}

func (h instancesHandler) act(c echo.Context, do func(ctx context.Context, workspaceID, sandboxID, id string) (auxilia.Instance, error)) error {
	sandboxID, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	id, err := pathID(c, "instance_id", "instance")
	if err != nil {
		return err
	}
	inst, err := do(c.Request().Context(), actor(c).Workspace.ID, sandboxID, id)
	if err != nil {
		return err
	}
	// The answer names the instance, not its thread: the list has that.
	return c.JSON(http.StatusOK, viewInstance(auxilia.InstanceUse{Instance: inst}))
}

// destroy destroys an instance.
//
//	@Summary		Destroy an instance
//	@Description	Detaches the instance from its thread and destroys it at its provider (the reaper finishes if the provider does not answer). Its files go with it, and an open run on its thread loses them; the thread's next run makes a new instance. Audited as `instance.destroy` on the sandbox.
//	@Tags			sandboxes
//	@Security		BearerAuth
//	@Param			id			path	string	true	"Sandbox id"	format(uuid)
//	@Param			instance_id	path	string	true	"Instance id"	format(uuid)
//	@Success		204
//	@Failure		401,403,404	{object}	Problem
//	@ID				destroySandboxInstance
//	@Router			/api/v1/sandboxes/{id}/instances/{instance_id} [delete]
func (h instancesHandler) destroy(c echo.Context) error {
	sandboxID, err := pathID(c, "id", "sandbox")
	if err != nil {
		return err
	}
	id, err := pathID(c, "instance_id", "instance")
	if err != nil {
		return err
	}
	if err := h.svc.DestroyInstance(c.Request().Context(), actor(c).Workspace.ID, sandboxID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
