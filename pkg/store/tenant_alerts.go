package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantAlerts are the alerts announced in the workspace, as its admins
// see them.
type TenantAlerts struct{ t Tenant }

// Alerts returns the workspace's alerts.
func (t Tenant) Alerts() TenantAlerts { return TenantAlerts{t} }

// List returns the workspace's latest alerts, newest first.
func (s TenantAlerts) List(ctx context.Context, limit int) ([]auxilia.Alert, error) {
	return s.t.db.alerts().List(ctx, s.t.ws, limit)
}

// Limits returns the workspace's own settings and the limits in force.
func (s TenantQuotas) Limits(ctx context.Context) (auxilia.QuotaSettings, auxilia.Quotas, error) {
	return s.t.db.quotas().Limits(ctx, s.t.ws)
}

// SystemAlerts are every workspace's alerts as the alerts jobs measure and
// deliver them.
type SystemAlerts struct{ s System }

// Alerts returns the alerts of every workspace.
func (s System) Alerts() SystemAlerts { return SystemAlerts{s} }

// Workspaces returns every workspace.
func (s SystemAlerts) Workspaces(ctx context.Context) ([]auxilia.Workspace, error) {
	return s.s.db.workspaces().All(ctx)
}

// Use returns each of the workspace's quotas with its current use.
func (s SystemAlerts) Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error) {
	return s.s.db.quotas().Use(ctx, workspaceID)
}

// Limits returns the workspace's own settings and the limits in force.
func (s SystemAlerts) Limits(ctx context.Context, workspaceID string) (auxilia.QuotaSettings, auxilia.Quotas, error) {
	return s.s.db.quotas().Limits(ctx, workspaceID)
}

// Record records the alert levels the workspace's uses reached: each rise
// announced once, each fall written silently.
func (s SystemAlerts) Record(ctx context.Context, workspaceID string, reached []auxilia.AlertReached) error {
	return s.s.db.quotas().Record(ctx, workspaceID, reached)
}

// Due returns up to limit alerts whose webhook delivery is due at now.
func (s SystemAlerts) Due(ctx context.Context, now time.Time, limit int) ([]auxilia.Alert, error) {
	return s.s.db.alerts().Due(ctx, now, limit)
}

// Delivered records that the webhook took the alert.
func (s SystemAlerts) Delivered(ctx context.Context, id string, attempts int, at time.Time) error {
	return s.s.db.alerts().Delivered(ctx, id, attempts, at)
}

// Retry records a failed attempt, to be made again at next.
func (s SystemAlerts) Retry(ctx context.Context, id string, attempts int, lastError string, next time.Time) error {
	return s.s.db.alerts().Retry(ctx, id, attempts, lastError, next)
}

// GiveUp records that the alert will not be delivered, with an audit entry.
func (s SystemAlerts) GiveUp(ctx context.Context, a auxilia.Alert, attempts int, lastError string) error {
	return s.s.db.alerts().GiveUp(ctx, a, attempts, lastError)
}
