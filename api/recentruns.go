package api

import (
	"net/http"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// recent lists the workspace's runs across its agents.
//
//	@Summary		Recent runs
//	@Description	The workspace's runs across its agents and threads, newest first. Each filter narrows the list: agent_id, sandbox_id, status (a run idle past AUXILIA_RUN_IDLE_TIMEOUT is expired). A filter that is not a uuid, or a status that is not one of the three, is 422 naming it.
//	@Tags			runs
//	@Produce		json
//	@Security		BearerAuth
//	@Param			agent_id	query		string	false	"Only this agent's runs"	format(uuid)
//	@Param			sandbox_id	query		string	false	"Only the runs on this sandbox"	format(uuid)
//	@Param			status		query		string	false	"Only runs in this state"	Enums(active,completed,expired)
//	@Param			page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param			page_token	query		string	false	"next_page_token of the previous page"
//	@Success		200			{object}	runList
//	@Failure		401,422		{object}	Problem
//	@ID				listRecentRuns
//	@Router			/api/v1/runs [get]
func (h runsHandler) recent(c echo.Context) error {
	var fe auxilia.FieldErrors
	var f auxilia.RunFilter
	queryID(c, &fe, "agent_id", &f.AgentID)
	queryID(c, &fe, "sandbox_id", &f.SandboxID)
	switch s := auxilia.RunStatus(c.QueryParam("status")); s {
	case "", auxilia.RunActive, auxilia.RunCompleted, auxilia.RunExpired:
		f.Status = s
	default:
		fe.Add("status", "must be one of active, completed, expired")
	}
	req, err := filteredPage(c, &fe)
	if err != nil {
		return err
	}
	page, err := h.svc.ListRecentRuns(c.Request().Context(), actor(c).Workspace.ID, f, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, runList(listOf(page, viewRun)))
}
