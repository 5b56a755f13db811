package api

import (
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// startFailureView is a run start refused because the agent's sandbox could
// not be used, as its thread keeps it.
type startFailureView struct {
	ID string `json:"id" format:"uuid"`
	// SandboxID is the sandbox that could not be used; it may be deleted since.
	SandboxID *string `json:"sandbox_id" format:"uuid" extensions:"x-nullable"`
	// SandboxName is its name when the start failed.
	SandboxName string `json:"sandbox_name" example:"Analysis"`
	// Reason is the probe's reason, as a sandbox_unavailable problem's probe_reason.
	Reason string `json:"reason" example:"network"`
	// Notice is what the start's caller was told: the problem's detail.
	Notice   string    `json:"notice" example:"Sandbox 'Analysis' is not available: network (connection refused)"`
	FailedAt time.Time `json:"failed_at" format:"date-time"`
} //@name StartFailure

type startFailureList list[startFailureView] //@name StartFailureList

func viewStartFailure(f auxilia.StartFailure) startFailureView {
	v := startFailureView{ID: f.ID, SandboxName: f.SandboxName, Reason: f.Reason, Notice: f.Notice, FailedAt: f.At}
	if f.SandboxID != "" {
		v.SandboxID = &f.SandboxID
	}
	return v
}

// startFailures lists a thread's refused run starts.
//
//	@Summary		List a thread's refused run starts
//	@Description	The run starts of the thread refused with 409 sandbox_unavailable, oldest first, each with the notice its caller was shown, when, and the sandbox it named (by the name it had then; `sandbox_id` may name a sandbox deleted since). A thread keeps its newest 50. A start refused on a thread that did not exist yet makes the thread.
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			id			path		string	true	"Agent id"	format(uuid)
//	@Param			thread_id	path		string	true	"The caller's thread id"
//	@Param			page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param			page_token	query		string	false	"next_page_token of the previous page"
//	@Success		200			{object}	startFailureList
//	@Failure		401,404,422	{object}	Problem
//	@ID				listStartFailures
//	@Router			/api/v1/agents/{id}/threads/{thread_id}/start-failures [get]
func (h runsHandler) startFailures(c echo.Context) error {
	agentID, err := pathID(c, "id", "agent")
	if err != nil {
		return err
	}
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.svc.ListStartFailures(c.Request().Context(), actor(c).Workspace.ID, agentID, c.Param("thread_id"), req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, startFailureList(listOf(page, viewStartFailure)))
}
