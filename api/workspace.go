package api

import (
	"context"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// QuotaService tells a workspace's quotas and its use of each, and its
// cost budget with the month's estimated cost.
type QuotaService interface {
	Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error)
	Budget(ctx context.Context, workspaceID string) (auxilia.Budget, error)
}

// PeopleService lists the people of a workspace who signed in with the
// identity provider.
type PeopleService interface {
	People(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Member], error)
}

type workspaceHandler struct {
	quotas QuotaService
	people PeopleService
}

func (h workspaceHandler) routes(g routes) {
	g.GET("/workspace", h.workspace)
	g.GET("/me", h.me)
	if h.people != nil {
		g.GET("/workspace/people", h.listPeople, adminOnly)
	}
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
	// TokenID is the token's id ("" for a person signed in to the console).
	TokenID string `json:"token_id" example:"0b1c…"`
	// Name is the token's name, or the person's.
	Name      string        `json:"name" example:"ci"`
	Role      string        `json:"role" enums:"admin,member"`
	Workspace workspaceView `json:"workspace"`
	// User is the person signed in to the console (null for a token).
	User *meUser `json:"user" extensions:"x-nullable"`
} //@name Me

type meUser struct {
	ID string `json:"id" format:"uuid"`
	// Email and Name are what the identity provider said at sign-in.
	Email string `json:"email" example:"ada@example.com"`
	Name  string `json:"name" example:"Ada Lovelace"`
} //@name MeUser

type personView struct {
	ID           string    `json:"id" format:"uuid"`
	Email        string    `json:"email" example:"ada@example.com"`
	Name         string    `json:"name" example:"Ada Lovelace"`
	Role         string    `json:"role" enums:"admin,member"`
	LastSignInAt time.Time `json:"last_sign_in_at" format:"date-time"`
} //@name Person

type peopleList list[personView] //@name PersonList

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

// me describes the caller: its token, or the person signed in.
//
//	@Summary	The caller's token or person, role and workspace
//	@Tags		workspace
//	@Produce	json
//	@Security	BearerAuth
//	@Success	200	{object}	me
//	@Failure	401	{object}	Problem
//	@ID			getMe
//	@Router		/api/v1/me [get]
func (h workspaceHandler) me(c echo.Context) error {
	a := actor(c)
	out := me{
		TokenID: a.TokenID, Name: a.TokenName, Role: string(a.Role),
		Workspace: workspaceView{ID: a.Workspace.ID, Name: a.Workspace.Name},
	}
	if a.UserID != "" {
		out.Name = a.UserName
		out.User = &meUser{ID: a.UserID, Email: a.UserEmail, Name: a.UserFullName}
	}
	return c.JSON(http.StatusOK, out)
}

// listPeople pages through the workspace's people: those whose groups gave
// them the workspace at their last sign-in or session refresh.
//
//	@Summary	List the people of the workspace
//	@Tags		workspace
//	@Produce	json
//	@Security	BearerAuth
//	@Param		page_size	query		int		false	"Items per page"	minimum(1)	maximum(200)	default(50)
//	@Param		page_token	query		string	false	"next_page_token of the previous page"
//	@Success	200			{object}	peopleList
//	@Failure	401,403,422	{object}	Problem
//	@ID			listPeople
//	@Router		/api/v1/workspace/people [get]
func (h workspaceHandler) listPeople(c echo.Context) error {
	req, err := pageRequest(c)
	if err != nil {
		return err
	}
	page, err := h.people.People(c.Request().Context(), actor(c).Workspace.ID, req)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, peopleList(listOf(page, func(m auxilia.Member) personView {
		return personView{ID: m.ID, Email: m.Email, Name: m.Name, Role: string(m.Role), LastSignInAt: m.LastSignInAt}
	})))
}
