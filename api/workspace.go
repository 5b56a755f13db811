package api

import (
	"context"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// QuotaService tells a workspace's quotas and its use of each, and its
// cost budget with the month's estimated cost.
type QuotaService interface {
	Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error)
	Budget(ctx context.Context, workspaceID string) (auxilia.Budget, error)
}

type workspaceHandler struct{ quotas QuotaService }

func (h workspaceHandler) routes(g routes) {
	g.GET("/workspace", h.workspace)
	g.GET("/me", h.me)
}

type workspaceView struct {
	ID   string `json:"id" format:"uuid"`
	Name string `json:"name" example:"default"`
} //@name Workspace

// workspaceDetail is the workspace with the quotas the operator set on it.
type workspaceDetail struct {
	workspaceView
	Quotas     []quotaView `json:"quotas"`
	CostBudget *budgetView `json:"cost_budget" extensions:"x-nullable"`
} //@name WorkspaceDetail

// budgetView is the workspace's estimated-cost budget for the calendar
// month (UTC) and the cost so far. Only the server's operator sets it
// (AUXILIA_BUDGET_COST, auxilia quotas set --cost-budget). It alerts at 80
// and 100 %; it refuses nothing.
type budgetView struct {
	// Limit is the budget in force, in currency; 0 is none.
	Limit float64 `json:"limit" example:"500"`
	// Default tells that the budget is the server's default, not one set on this workspace.
	Default bool `json:"default"`
	// EstimatedCost is this month's cost so far, an estimate from the
	// operator's rates per provider (the provider's bill is what is owed);
	// null without a budget or without rates.
	EstimatedCost *float64 `json:"estimated_cost" example:"412.5" extensions:"x-nullable"`
	// Currency is the rates' ISO 4217 currency.
	Currency string `json:"currency" example:"USD"`
	// Alert is the highest alert level the estimated cost reached: 80 or 100 (percent of the budget), 0 for none.
	Alert int `json:"alert" enums:"0,80,100"`
} //@name CostBudget

// quotaView is one quota and its use. Only the server's operator sets
// quotas (AUXILIA_QUOTA_*, auxilia quotas set).
type quotaView struct {
	// Name is the quota: live instances at once (pooled ones included),
	// instance-hours this calendar month (UTC), or threads with a live
	// instance per agent.
	Name string `json:"name" enums:"instances,instance_hours,threads_per_agent"`
	// Limit is the quota in force; 0 is no limit.
	Limit int `json:"limit" example:"20"`
	// Default tells that the limit is the server's default, not one set on this workspace.
	Default bool `json:"default"`
	// Used is the current use (for threads_per_agent, the busiest agent's);
	// null while it is not measured.
	Used *int `json:"used" example:"17" extensions:"x-nullable"`
	// Alert is the highest alert level the use reached: 80 or 100 (percent of the limit), 0 for none.
	Alert int `json:"alert" enums:"0,80,100"`
} //@name Quota

func quotaViews(in []auxilia.QuotaUse) []quotaView {
	out := make([]quotaView, 0, len(in))
	for _, u := range in {
		v := quotaView{Name: string(u.Name), Limit: u.Limit, Default: u.Default, Used: u.Used}
		if u.Used != nil {
			v.Alert = auxilia.AlertLevel(*u.Used, u.Limit)
		}
		out = append(out, v)
	}
	return out
}

type me struct {
	TokenID   string        `json:"token_id" format:"uuid"`
	Name      string        `json:"name" example:"ci"`
	Role      string        `json:"role" enums:"admin,member"`
	Workspace workspaceView `json:"workspace"`
} //@name Me

// workspace describes the caller's workspace.
//
//	@Summary		The caller's workspace, with its quotas and cost budget
//	@Description	The workspace, and each quota the server's operator set on it (0: no limit) with its current use and the alert level (80 or 100 percent) that use reached. Instance-hours show no use until usage is metered. `cost_budget` is the estimated-cost budget the operator set for the month, with the month's estimated cost so far (an estimate from the operator's rates, not a bill) and its alert level: it alerts, it never refuses a start.
//	@Tags			workspace
//	@Produce		json
//	@Security		BearerAuth
//	@Success		200	{object}	workspaceDetail
//	@Failure		401	{object}	Problem
//	@ID				getWorkspace
//	@Router			/api/v1/workspace [get]
func (h workspaceHandler) workspace(c echo.Context) error {
	a := actor(c)
	out := workspaceDetail{workspaceView: workspaceView{ID: a.Workspace.ID, Name: a.Workspace.Name}, Quotas: []quotaView{}}
	if h.quotas != nil {
		use, err := h.quotas.Use(c.Request().Context(), a.Workspace.ID)
		if err != nil {
			return err
		}
		out.Quotas = quotaViews(use)
		b, err := h.quotas.Budget(c.Request().Context(), a.Workspace.ID)
		if err != nil {
			return err
		}
		out.CostBudget = &budgetView{Limit: b.Limit, Default: b.Default, EstimatedCost: b.Cost, Currency: b.Currency, Alert: b.Level()}
	}
	return c.JSON(http.StatusOK, out)
}

// me describes the caller's token.
//
//	@Summary	The caller's token, role and workspace
//	@Tags		workspace
//	@Produce	json
//	@Security	BearerAuth
//	@Success	200	{object}	me
//	@Failure	401	{object}	Problem
//	@ID			getMe
//	@Router		/api/v1/me [get]
func (h workspaceHandler) me(c echo.Context) error {
	a := actor(c)
	return c.JSON(http.StatusOK, me{
		TokenID: a.TokenID, Name: a.TokenName, Role: string(a.Role),
		Workspace: workspaceView{ID: a.Workspace.ID, Name: a.Workspace.Name},
	})
}
