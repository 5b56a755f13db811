package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

type auditRow struct {
	ID           string `gorm:"primaryKey"`
	WorkspaceID  *string
	At           time.Time
	TokenID      string
	TokenName    string
	UserID       string
	UserName     string
	Action       string
	ResourceType string
	ResourceID   string
	Outcome      string
	Detail       string
}

func (auditRow) TableName() string { return "audit_entries" }

// auditColumns are auditRow's columns, in the order of its values.
const auditColumns = "id, workspace_id, at, token_id, token_name, user_id, user_name, action, resource_type, " +
	"resource_id, outcome, detail"

var auditInsertSQL = insertSQL("audit_entries", auditColumns)

func (r auditRow) values() []any {
	return []any{r.ID, r.WorkspaceID, r.At, r.TokenID, r.TokenName, r.UserID, r.UserName, r.Action, r.ResourceType,
		r.ResourceID, r.Outcome, r.Detail}
}

func (r auditRow) domain() auxilia.AuditEntry {
	e := auxilia.AuditEntry{ID: r.ID, At: r.At, TokenID: r.TokenID, TokenName: r.TokenName,
		UserID: r.UserID, UserName: r.UserName, Action: r.Action,
		ResourceType: r.ResourceType, ResourceID: r.ResourceID, Outcome: auxilia.AuditOutcome(r.Outcome), Detail: r.Detail}
	if r.WorkspaceID != nil {
		e.WorkspaceID = *r.WorkspaceID
	}
	return e
}

// auditTable stores the audit log.
type auditTable struct{ db *DB }

func (db *DB) audit() auditTable { return auditTable{db} }

// Append records an entry, in the transaction ctx carries when there is one.
func (s auditTable) Append(ctx context.Context, e auxilia.AuditEntry) error {
	_, err := s.db.exec(ctx, auditInsertSQL, newAuditRow(e).values()...)
	return err
}

// newAuditRow is e's row, with a new id, at now.
func newAuditRow(e auxilia.AuditEntry) auditRow {
	row := auditRow{ID: auxilia.NewID(), At: Now(), TokenID: e.TokenID, TokenName: e.TokenName,
		UserID: e.UserID, UserName: e.UserName, Action: e.Action,
		ResourceType: e.ResourceType, ResourceID: e.ResourceID, Outcome: string(e.Outcome), Detail: e.Detail}
	if e.WorkspaceID != "" {
		row.WorkspaceID = &e.WorkspaceID
	}
	return row
}

// List returns a page of the workspace's entries, newest first.
func (s auditTable) List(ctx context.Context, workspaceID string, f auxilia.AuditFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.AuditEntry], error) {
	q := s.db.conn(ctx).Where("workspace_id = ?", workspaceID)
	if f.ResourceType != "" {
		q = q.Where("resource_type = ?", f.ResourceType)
	}
	if f.ResourceID != "" {
		q = q.Where("resource_id = ?", f.ResourceID)
	}
	if f.TokenID != "" {
		q = q.Where("token_id = ?", f.TokenID)
	}
	if f.Action != "" {
		q = q.Where("action = ?", f.Action)
	}
	if f.Outcome != "" {
		q = q.Where("outcome = ?", string(f.Outcome))
	}
	if !f.Since.IsZero() {
		q = q.Where("at >= ?", f.Since.UTC())
	}
	if !f.Until.IsZero() {
		q = q.Where("at < ?", f.Until.UTC())
	}
	if req.After != "" {
		q = q.Where("id < ?", req.After)
	}
	var rows []auditRow
	if err := q.Order("id DESC").Limit(req.Size + 1).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.AuditEntry]{}, err
	}
	return toPage(rows, req, func(r auditRow) string { return r.ID }, auditRow.domain), nil
}
