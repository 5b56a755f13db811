package store

import (
	"context"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Each subject's alert level is a column of the workspace's quota row, so
// that raising it is a compare-and-set: whichever replica or admission
// raises it first announces the crossing, once.
var alertColumns = map[auxilia.AlertSubject]string{
	auxilia.AlertSubject(auxilia.QuotaInstances):       "alerted_instances",
	auxilia.AlertSubject(auxilia.QuotaInstanceHours):   "alerted_instance_hours",
	auxilia.AlertSubject(auxilia.QuotaThreadsPerAgent): "alerted_threads_per_agent",
	auxilia.AlertCostBudget:                            "alerted_cost_budget",
}

// alerted is the alert level last recorded for the subject.
func (r quotaRow) alerted(subject auxilia.AlertSubject) int {
	switch subject {
	case auxilia.AlertSubject(auxilia.QuotaInstances):
		return r.AlertedInstances
	case auxilia.AlertSubject(auxilia.QuotaInstanceHours):
		return r.AlertedInstanceHours
	case auxilia.AlertSubject(auxilia.QuotaThreadsPerAgent):
		return r.AlertedThreadsPerAgent
	case auxilia.AlertCostBudget:
		return r.AlertedCostBudget
	}
	return 0
}

// quotaReached is the alert level a quota's use reaches.
func quotaReached(name auxilia.QuotaName, used, limit int) auxilia.AlertReached {
	return auxilia.AlertReached{Subject: auxilia.AlertSubject(name), Level: auxilia.AlertLevel(used, limit),
		Used: float64(used), Limit: float64(limit)}
}

type alertRow struct {
	ID            string `gorm:"primaryKey"`
	WorkspaceID   string
	WorkspaceName string `gorm:"->;-:migration"`
	Subject       string
	Level         int
	Used          float64
	LimitValue    float64
	Detail        string
	CreatedAt     time.Time
	Delivery      string
	Attempts      int
	LastError     string
	NextAttemptAt *time.Time
	DeliveredAt   *time.Time
}

func (alertRow) TableName() string { return "alerts" }

func (r alertRow) domain() auxilia.Alert {
	return auxilia.Alert{ID: r.ID, WorkspaceID: r.WorkspaceID, WorkspaceName: r.WorkspaceName, Subject: auxilia.AlertSubject(r.Subject),
		Level: r.Level, Used: r.Used, Limit: r.LimitValue, Detail: r.Detail, CreatedAt: r.CreatedAt,
		Delivery: auxilia.AlertDelivery(r.Delivery), Attempts: r.Attempts, LastError: r.LastError,
		NextAttempt: r.NextAttemptAt, DeliveredAt: r.DeliveredAt}
}

// SetAlertWebhook tells the store whether alerts are to be delivered to a
// webhook (AUXILIA_ALERT_WEBHOOK_URL): each alert is then written pending,
// otherwise off. Call it before the store is used.
func (db *DB) SetAlertWebhook(on bool) { db.alertWebhook = on }

// record records the alert level a use reached: announced when it rose,
// written silently when it fell (so that the next crossing is announced
// again).
func (s quotaTable) record(ctx context.Context, row quotaRow, r auxilia.AlertReached) error {
	if r.Level < row.alerted(r.Subject) {
		return s.db.conn(ctx).Model(&quotaRow{}).
			Where("workspace_id = ? AND "+alertColumns[r.Subject]+" > ?", row.WorkspaceID, r.Level).
			UpdateColumn(alertColumns[r.Subject], r.Level).Error
	}
	return s.raise(ctx, row, r)
}

// raise announces r if its level is above the one recorded: the level is
// set only where it is still lower, so of two that raise it at once one
// announces it. The announcement is an audit entry and an alert (for the
// webhook), in ctx's transaction.
func (s quotaTable) raise(ctx context.Context, row quotaRow, r auxilia.AlertReached) error {
	column := alertColumns[r.Subject]
	if r.Level <= row.alerted(r.Subject) || column == "" {
		return nil
	}
	fresh := map[string]any{"workspace_id": row.WorkspaceID, column: r.Level, "updated_at": Now()}
	res := s.db.conn(ctx).Model(&quotaRow{}).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "workspace_id"}},
		DoUpdates: clause.AssignmentColumns([]string{column}),
		Where:     clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "workspace_quotas." + column + " < ?", Vars: []any{r.Level}}}},
	}).Create(fresh)
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	detail := r.Detail()
	delivery := auxilia.AlertDeliveryOff
	var next *time.Time
	if s.db.alertWebhook {
		now := Now()
		delivery, next = auxilia.AlertDeliveryPending, &now
	}
	if err := s.db.conn(ctx).Create(&alertRow{ID: auxilia.NewID(), WorkspaceID: row.WorkspaceID, Subject: string(r.Subject),
		Level: r.Level, Used: r.Used, LimitValue: r.Limit, Detail: detail, CreatedAt: Now(), Delivery: string(delivery),
		NextAttemptAt: next}).Error; err != nil {
		return err
	}
	return s.db.audit().Append(ctx, auxilia.AuditEntry{WorkspaceID: row.WorkspaceID, TokenName: auxilia.QuotaActor, Action: "quota.alert",
		ResourceType: "quota", ResourceID: string(r.Subject), Outcome: auxilia.OutcomeSuccess, Detail: detail})
}

// Record records the alert levels the uses reached, as the alerts job
// measures them: each rise announced once, each fall written silently.
func (s quotaTable) Record(ctx context.Context, workspaceID string, reached []auxilia.AlertReached) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		row, err := s.row(ctx, workspaceID)
		if err != nil {
			return err
		}
		for _, r := range reached {
			if err := s.record(ctx, row, r); err != nil {
				return err
			}
		}
		return nil
	})
}

// alertTable is the alerts announced and the outbox of their webhook.
type alertTable struct{ db *DB }

func (db *DB) alerts() alertTable { return alertTable{db} }

func (s alertTable) joined(ctx context.Context) *gorm.DB {
	return s.db.conn(ctx).Model(&alertRow{}).Select("alerts.*, w.name AS workspace_name").
		Joins("JOIN workspaces w ON w.id = alerts.workspace_id")
}

// List returns the workspace's latest alerts, newest first.
func (s alertTable) List(ctx context.Context, workspaceID string, limit int) ([]auxilia.Alert, error) {
	var rows []alertRow
	if err := s.joined(ctx).Where("alerts.workspace_id = ?", workspaceID).
		Order("alerts.created_at DESC, alerts.id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, err
	}
	return alertDomains(rows), nil
}

// Due returns up to limit pending alerts whose next attempt is due at now,
// oldest first.
func (s alertTable) Due(ctx context.Context, now time.Time, limit int) ([]auxilia.Alert, error) {
	var rows []alertRow
	if err := s.joined(ctx).Where("alerts.delivery = ? AND alerts.next_attempt_at <= ?", auxilia.AlertDeliveryPending, now).
		Order("alerts.next_attempt_at, alerts.id").Limit(limit).Find(&rows).Error; err != nil {
		return nil, err
	}
	return alertDomains(rows), nil
}

func alertDomains(rows []alertRow) []auxilia.Alert {
	out := make([]auxilia.Alert, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.domain())
	}
	return out
}

// Delivered records that the webhook took the alert.
func (s alertTable) Delivered(ctx context.Context, id string, attempts int, at time.Time) error {
	return s.db.conn(ctx).Model(&alertRow{}).Where("id = ? AND delivery = ?", id, auxilia.AlertDeliveryPending).
		UpdateColumns(map[string]any{"delivery": auxilia.AlertDeliveryDelivered, "attempts": attempts, "last_error": "",
			"next_attempt_at": nil, "delivered_at": at}).Error
}

// Retry records a failed attempt, to be made again at next.
func (s alertTable) Retry(ctx context.Context, id string, attempts int, lastError string, next time.Time) error {
	return s.db.conn(ctx).Model(&alertRow{}).Where("id = ? AND delivery = ?", id, auxilia.AlertDeliveryPending).
		UpdateColumns(map[string]any{"attempts": attempts, "last_error": lastError, "next_attempt_at": next}).Error
}

// GiveUp records that the last attempt failed and no other will be made,
// with an audit entry in the alert's workspace.
func (s alertTable) GiveUp(ctx context.Context, a auxilia.Alert, attempts int, lastError string) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		res := s.db.conn(ctx).Model(&alertRow{}).Where("id = ? AND delivery = ?", a.ID, auxilia.AlertDeliveryPending).
			UpdateColumns(map[string]any{"delivery": auxilia.AlertDeliveryFailed, "attempts": attempts, "last_error": lastError,
				"next_attempt_at": nil})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		return s.db.audit().Append(ctx, auxilia.AuditEntry{WorkspaceID: a.WorkspaceID, TokenName: auxilia.QuotaActor,
			Action: "alert.failed", ResourceType: "quota", ResourceID: string(a.Subject), Outcome: auxilia.OutcomeError,
			Detail: fmt.Sprintf("the alert webhook refused the %s %d%% alert %d times; the last: %s", a.Subject, a.Level, attempts, lastError)})
	})
}
