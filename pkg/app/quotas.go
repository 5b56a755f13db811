package app

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/usage"
)

// Quotas are the workspaces' quotas and cost budgets: the API shows a
// workspace its own, and only the operator sets them, with the auxilia
// command.
type Quotas struct {
	db       *store.DB
	usage    *usage.Service
	currency string
}

// NewQuotas returns the quotas kept in db; usage estimates the cost a
// budget is measured against, in currency ("": the default).
func NewQuotas(db *store.DB, u *usage.Service, currency string) Quotas {
	if currency == "" {
		currency = usage.DefaultCurrency
	}
	return Quotas{db: db, usage: u, currency: currency}
}

// Use returns each of the workspace's quotas with its current use.
func (q Quotas) Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error) {
	return q.db.In(workspaceID).Quotas().Use(ctx)
}

// Budget returns the workspace's estimated-cost budget and, where it has
// one, the estimated cost of this calendar month (UTC) so far: the month's
// usage is read only where a budget is measured against it.
func (q Quotas) Budget(ctx context.Context, workspaceID string) (auxilia.Budget, error) {
	own, limits, err := q.db.In(workspaceID).Quotas().Limits(ctx)
	if err != nil {
		return auxilia.Budget{}, err
	}
	b := auxilia.Budget{Limit: limits.CostBudget, Default: own.CostBudget == nil, Currency: q.currency}
	if q.usage == nil || b.Limit == 0 {
		return b, nil
	}
	now := time.Now().UTC()
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	answer, err := q.usage.Report(ctx, workspaceID, usage.Query{From: from, To: now, GroupBy: usage.Provider, Granularity: usage.Day})
	if err != nil {
		return b, err
	}
	b.Currency = answer.Currency
	if !answer.Estimated {
		return b, nil
	}
	cost := 0.0
	for _, row := range answer.Rows {
		if row.EstimatedCost != nil {
			cost += *row.EstimatedCost
		}
	}
	b.Cost = &cost
	return b, nil
}

// Set changes the settings update names on the workspace called name, and
// records the change in its audit log.
func (q Quotas) Set(ctx context.Context, name string, update auxilia.QuotaSettings) ([]auxilia.QuotaUse, error) {
	ws, err := q.db.System("quotas").Workspaces().ByName(ctx, name)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, n := range auxilia.QuotaNames() {
		if v := update.Of(n); v != nil {
			changed = append(changed, fmt.Sprintf("%s=%d", n, *v))
		}
	}
	if update.CostBudget != nil {
		changed = append(changed, fmt.Sprintf("%s=%g", auxilia.AlertCostBudget, *update.CostBudget))
	}
	err = q.db.InTx(ctx, func(ctx context.Context) error {
		if _, err := q.db.System("quotas").Quotas().Set(ctx, ws.ID, update); err != nil {
			return err
		}
		return auxilia.Audit(ctx, q.db.System("audit").Audit(), ws.ID, "quota.set", "quota", "", strings.Join(changed, " "))
	})
	if err != nil {
		return nil, err
	}
	return q.Use(ctx, ws.ID)
}

// Show returns the quotas of the workspace called name with their use.
func (q Quotas) Show(ctx context.Context, name string) ([]auxilia.QuotaUse, error) {
	ws, err := q.db.System("quotas").Workspaces().ByName(ctx, name)
	if err != nil {
		return nil, err
	}
	return q.Use(ctx, ws.ID)
}

// ShowBudget returns the cost budget of the workspace called name with its use.
func (q Quotas) ShowBudget(ctx context.Context, name string) (auxilia.Budget, error) {
	ws, err := q.db.System("quotas").Workspaces().ByName(ctx, name)
	if err != nil {
		return auxilia.Budget{}, err
	}
	return q.Budget(ctx, ws.ID)
}

// AlertLog lists each workspace's alerts through its handle.
type AlertLog struct{ db *store.DB }

// List returns the workspace's latest alerts, newest first.
func (l AlertLog) List(ctx context.Context, workspaceID string, limit int) ([]auxilia.Alert, error) {
	return l.db.In(workspaceID).Alerts().List(ctx, limit)
}
