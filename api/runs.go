package api

import (
	"context"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/labstack/echo/v4"
)

// RunService is what the API needs of runs, threads and the sandbox tools.
type RunService interface {
	Start(ctx context.Context, workspaceID, agentID, key string) (auxilia.Run, error)
	StartReporting(ctx context.Context, workspaceID, agentID, key string, progress run.Progress) (auxilia.Run, error)
	Get(ctx context.Context, workspaceID, id string) (auxilia.Run, error)
	Complete(ctx context.Context, workspaceID, id string) (auxilia.Run, error)
	Thread(ctx context.Context, workspaceID, agentID, key string) (auxilia.Thread, error)
	ListThreads(ctx context.Context, workspaceID, agentID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Thread], error)
	ListRuns(ctx context.Context, workspaceID, agentID, key string, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error)
	ListStartFailures(ctx context.Context, workspaceID, agentID, key string, req auxilia.PageRequest) (auxilia.Page[auxilia.StartFailure], error)
	ListRecentRuns(ctx context.Context, workspaceID string, f auxilia.RunFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error)
	DeleteThread(ctx context.Context, workspaceID, agentID, key string, check func(auxilia.Thread) error) error

	Execute(ctx context.Context, workspaceID, runID string, in run.ExecInput) (provider.ExecResult, error)
	List(ctx context.Context, workspaceID, runID string, in run.ListInput, approved bool) (run.Listing, error)
	Read(ctx context.Context, workspaceID, runID string, in run.ReadInput, approved bool) (run.Text, error)
	Download(ctx context.Context, workspaceID, runID, file string, limit int64, approved bool) (run.Download, error)
	Write(ctx context.Context, workspaceID, runID string, in run.WriteInput, approved bool) (string, error)
	Overwrite(ctx context.Context, workspaceID, runID string, in run.WriteInput, approved bool) (string, error)
	Edit(ctx context.Context, workspaceID, runID string, in run.EditInput, approved bool) (int, error)
	Glob(ctx context.Context, workspaceID, runID string, in run.GlobInput, approved bool) (run.GlobResult, error)
	Grep(ctx context.Context, workspaceID, runID string, in run.GrepInput, approved bool) (run.GrepResult, error)
	ApprovalService

	OpenTerminal(ctx context.Context, workspaceID, runID string, size provider.TermSize, approved bool) (*run.Terminal, error)
	CheckTerminal(ctx context.Context, workspaceID, runID string, approved bool) error
}

type runsHandler struct {
	svc         RunService
	uploadLimit int64
}

func (h runsHandler) routes(g routes, idem echo.MiddlewareFunc) {
	g.POST("/agents/:id/threads/:thread_id/runs", h.start, idem)
	g.GET("/agents/:id/threads", h.threads)
	g.GET("/agents/:id/threads/:thread_id", h.thread)
	g.DELETE("/agents/:id/threads/:thread_id", h.deleteThread)
	g.GET("/agents/:id/threads/:thread_id/runs", h.runs)
	g.GET("/agents/:id/threads/:thread_id/start-failures", h.startFailures)
	g.GET("/runs", h.recent)
	g.GET("/runs/:run_id", h.get)
	g.POST("/runs/:run_id/complete", h.complete)
	g.GET("/runs/:run_id/files/raw", h.download)
	h.toolRoutes(g)
}

type runSandboxView struct {
	SandboxID  string `json:"sandbox_id" format:"uuid"`
	Name       string `json:"name"`
	Provider   string `json:"provider" extensions:"x-enum=providers"`
	InstanceID string `json:"instance_id" example:"loc-3f2a9c1b0d4e5f60"`
	Created    bool   `json:"created"`
	Replaced   bool   `json:"replaced"`
	// Deleted is set once the sandbox was deleted: the run ended with it.
	Deleted bool `json:"deleted"`
} //@name RunSandbox

type runView struct {
	ID             string          `json:"id" format:"uuid"`
	AgentID        string          `json:"agent_id" format:"uuid"`
	ThreadID       string          `json:"thread_id" example:"conversation-42"`
	Status         string          `json:"status" enums:"active,completed,expired"`
	Sandbox        *runSandboxView `json:"sandbox" extensions:"x-nullable"`
	Notice         *string         `json:"notice" extensions:"x-nullable"`
	StartedAt      time.Time       `json:"started_at" format:"date-time"`
	LastActivityAt time.Time       `json:"last_activity_at" format:"date-time"`
	EndedAt        *time.Time      `json:"ended_at" format:"date-time" extensions:"x-nullable"`
	// EndedBy says what ended the run: its caller (End run, or its MCP
	// session closing), a newer run on its thread, idleness, its sandbox's
	// delete, or its agent losing or changing sandbox (notice then says
	// which). Null while active, and for runs that ended before it was kept.
	EndedBy *string `json:"ended_by" enums:"caller,newer_run,idle,sandbox_deleted,agent_unbound" extensions:"x-nullable"`
} //@name Run

type runList list[runView] //@name RunList

type threadView struct {
	ThreadID   string     `json:"thread_id" example:"conversation-42"`
	SandboxID  *string    `json:"sandbox_id" format:"uuid" extensions:"x-nullable"`
	InstanceID *string    `json:"instance_id" extensions:"x-nullable"`
	LastRunAt  *time.Time `json:"last_run_at" format:"date-time" extensions:"x-nullable"`
	// State is the thread's instance: running, paused (its next run resumes
	// it), kept (no instance, but its files are kept: its next run restores
	// them) or none.
	State          string          `json:"state" enums:"running,paused,kept,none"`
	LastActivityAt *time.Time      `json:"last_activity_at" format:"date-time" extensions:"x-nullable"`
	PausesAt       *time.Time      `json:"pauses_at" format:"date-time" extensions:"x-nullable"`
	PausedAt       *time.Time      `json:"paused_at" format:"date-time" extensions:"x-nullable"`
	Kept           *threadKeptView `json:"kept" extensions:"x-nullable"`
} //@name Thread

// threadKeptView is what a thread's sandbox kept of its files.
type threadKeptView struct {
	KeptAt      time.Time `json:"kept_at" format:"date-time"`
	DeletedFrom time.Time `json:"deleted_from" format:"date-time"`
} //@name ThreadKept

type threadList list[threadView] //@name ThreadList

func viewRun(r auxilia.Run) runView {
	v := runView{ID: r.ID, AgentID: r.AgentID, ThreadID: r.ThreadKey, Status: string(r.Status),
		StartedAt: r.StartedAt, LastActivityAt: r.LastActivityAt, EndedAt: r.EndedAt}
	if r.SandboxID != "" {
		v.Sandbox = &runSandboxView{SandboxID: r.SandboxID, Name: r.SandboxName, Provider: r.Provider,
			InstanceID: r.InstanceRef, Created: r.Created, Replaced: r.Replaced, Deleted: r.SandboxDeleted}
	}
	if r.Notice != "" {
		v.Notice = &r.Notice
	}
	if r.EndedBy != "" {
		by := string(r.EndedBy)
		v.EndedBy = &by
	}
	return v
}

func viewThread(t auxilia.Thread) threadView {
	v := threadView{ThreadID: t.Key, LastRunAt: t.LastRunAt, LastActivityAt: t.LastActivityAt, State: "none"}
	if t.Kept != nil {
		v.State = "kept"
		v.Kept = &threadKeptView{KeptAt: t.Kept.At, DeletedFrom: t.Kept.ForgetAfter}
	}
	if t.Instance != nil && t.Instance.Status == auxilia.InstanceLive {
		v.SandboxID, v.InstanceID = &t.Instance.SandboxID, &t.Instance.ProviderRef
		v.State, v.PausedAt, v.PausesAt = "running", t.Instance.PausedAt, t.PausesAt
		if t.Instance.PausedAt != nil {
			v.State = "paused"
		}
	}
	return v
}

// start begins a run of the agent on the thread.
//
//	@Summary		Start a run of an agent on a thread
//	@Description	Probes the agent's sandbox, then reconnects the thread's instance, or creates one (installing the default packages), or replaces one the provider no longer has (the run's notice says so). A sandbox that cannot be used answers 409 sandbox_unavailable naming it; a provider that refuses calls this often, 429 provider_rate_limited with its Retry-After; a start that would pass one of the workspace's quotas (live instances, threads with a live instance per agent), 429 quota_exceeded naming the quota, its limit and its use, with Retry-After; a start cut short by the server shutting down, 503 service_unavailable with Retry-After. An agent without a sandbox gets a run with `sandbox: null`. Starting a run completes the thread's earlier active run. With `Accept: text/event-stream` the start answers 200 and streams its steps as they begin: `step` events (data: {"step","detail"}; probing, reconnecting, waiting, creating, installing, ready), pip's output while the default packages install as `output` events (data: {"text"}), then the run as a `run` event (the JSON form's body), or the problem as an `error` event. A failure before the first event is an ordinary problem answer. A retry with the same Idempotency-Key gets the JSON form's answer (201 and the run, or the problem).
//	@Tags			runs
//	@Produce		json,text/event-stream
//	@Security		BearerAuth
//	@Param			id				path		string	true	"Agent id"	format(uuid)
//	@Param			thread_id		path		string	true	"The caller's thread id: 1-128 of A-Z a-z 0-9 . _ : -, not . or .."
//	@Param			Idempotency-Key	header		string	false	"Makes the request safe to retry"	maxLength(255)
//	@Success		200				{string}	string	"With Accept: text/event-stream: the steps, then the run"
//	@Success		201				{object}	runView
//	@Header			201				{string}	Location	"The run"
//	@Failure		400,401,404,409,422,503	{object}	Problem
//	@ID				startRun
//	@Router			/api/v1/agents/{id}/threads/{thread_id}/runs [post]
func (h runsHandler) start(c echo.Context) error {
	agentID, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	if wantsEventStream(c) {
		return h.startStream(c, agentID)
	}
	r, err := h.svc.Start(c.Request().Context(), actor(c).Workspace.ID, agentID, c.Param("thread_id"))
	if err != nil {
		return cutShort(c, err, startCutShort)
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/runs/"+r.ID)
	return c.JSON(http.StatusCreated, viewRun(r))
}

// get reads a run.
//
//	@Summary	Get a run
//	@Tags		runs
//	@Produce	json
//	@Security	BearerAuth
//	@Param		run_id	path		string	true	"Run id"	format(uuid)
//	@Success	200		{object}	runView
//	@Header		200		{string}	ETag	"The run as it is now"
//	@Failure	401,404	{object}	Problem
//	@ID			getRun
//	@Router		/api/v1/runs/{run_id} [get]
func (h runsHandler) get(c echo.Context) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	r, err := h.svc.Get(c.Request().Context(), actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	return jsonWithETag(c, http.StatusOK, viewRun(r))
}

// complete ends a run.
//
//	@Summary		Complete a run
//	@Description	Ends the run. Providers that keep files between runs by snapshot (Cloud Run) save it now; if that fails the run still ends, and its notice says so.
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			run_id	path		string	true	"Run id"	format(uuid)
//	@Success		200		{object}	runView
//	@Failure		401,404,409	{object}	Problem
//	@ID				completeRun
//	@Router			/api/v1/runs/{run_id}/complete [post]
func (h runsHandler) complete(c echo.Context) error {
	id, err := pathID(c, "run_id", "run")
	if err != nil {
		return err
	}
	r, err := h.svc.Complete(c.Request().Context(), actor(c).Workspace.ID, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, viewRun(r))
}

// threads lists an agent's threads.
//
//	@Summary	List an agent's threads
//	@Tags		runs
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id			path		string	true	"Agent id"	format(uuid)
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	threadList
//	@Failure	401,404,422	{object}	Problem
//	@ID			listThreads
//	@Router		/api/v1/agents/{id}/threads [get]
func (h runsHandler) threads(c echo.Context) error {
	agentID, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.ListThreads(c.Request().Context(), actor(c).Workspace.ID, agentID, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, threadList(listOf(page, viewThread)))
}

// thread reads a thread: the sandbox instance it works in.
//
//	@Summary		Get a thread
//	@Description	The thread's instance and its state: `running`; `paused` (idle past the sandbox's `idle_minutes`: its next run resumes it, files intact); `kept` (no instance, but its files were kept, with `keep_files: always`: its next run restores them); `none`. `pauses_at` is when a running instance will pause if the thread stays idle; `kept` says when its files were kept and from when they are deleted (`max_kept_days`).
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string	true	"Agent id"	format(uuid)
//	@Param			thread_id	path		string	true	"The caller's thread id"
//	@Success		200			{object}	threadView
//	@Header			200			{string}	ETag	"The thread as it is now"
//	@Failure		401,404		{object}	Problem
//	@ID				getThread
//	@Router			/api/v1/agents/{id}/threads/{thread_id} [get]
func (h runsHandler) thread(c echo.Context) error {
	agentID, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	t, err := h.svc.Thread(c.Request().Context(), actor(c).Workspace.ID, agentID, c.Param("thread_id"))
	if err != nil {
		return err
	}
	return jsonWithETag(c, http.StatusOK, viewThread(t))
}

// deleteThread removes a thread and destroys its instance.
//
//	@Summary	Delete a thread
//	@Tags		runs
//	@Security	BearerAuth
//	@Param		id			path	string	true	"Agent id"	format(uuid)
//	@Param		thread_id	path	string	true	"The caller's thread id"
//	@Param		If-Match	header	string	false	"The ETag last read: the delete fails with 412 if the thread changed since (a new run, a new instance)"
//	@Success	204
//	@Failure	401,404,412	{object}	Problem
//	@ID			deleteThread
//	@Router		/api/v1/agents/{id}/threads/{thread_id} [delete]
func (h runsHandler) deleteThread(c echo.Context) error {
	agentID, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	unchanged := func(t auxilia.Thread) error { return checkIfMatch(c, "thread", viewThread(t)) }
	if err := h.svc.DeleteThread(c.Request().Context(), actor(c).Workspace.ID, agentID, c.Param("thread_id"), unchanged); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// runs lists a thread's runs.
//
//	@Summary	List a thread's runs
//	@Tags		runs
//	@Produce	json
//	@Security	BearerAuth
//	@Param		id			path		string	true	"Agent id"	format(uuid)
//	@Param		thread_id	path		string	true	"The caller's thread id"
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	runList
//	@Failure	401,404,422	{object}	Problem
//	@ID			listRuns
//	@Router		/api/v1/agents/{id}/threads/{thread_id}/runs [get]
func (h runsHandler) runs(c echo.Context) error {
	agentID, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.ListRuns(c.Request().Context(), actor(c).Workspace.ID, agentID, c.Param("thread_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, runList(listOf(page, viewRun)))
}
