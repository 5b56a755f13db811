package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
)

// Quotas are the workspaces' quotas: the API shows a workspace its own,
// and only the operator sets them, with the auxilia command.
type Quotas struct{ db *store.DB }

// NewQuotas returns the quotas kept in db.
func NewQuotas(db *store.DB) Quotas { return Quotas{db} }

// Use returns each of the workspace's quotas with its current use.
func (q Quotas) Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error) {
	return q.db.In(workspaceID).Quotas().Use(ctx)
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
