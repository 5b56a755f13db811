package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// keptStartFailures is how many refused starts a thread keeps, newest first:
// a caller that keeps starting on a broken sandbox does not fill the database.
const keptStartFailures = 50

type startFailureRow struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	ThreadID    string
	SandboxID   *string
	SandboxName string
	Reason      string
	Notice      string
	FailedAt    time.Time
}

func (startFailureRow) TableName() string { return "start_failures" }

func (r startFailureRow) domain() auxilia.StartFailure {
	return auxilia.StartFailure{ID: r.ID, WorkspaceID: r.WorkspaceID, ThreadID: r.ThreadID, SandboxID: deref(r.SandboxID),
		SandboxName: r.SandboxName, Reason: r.Reason, Notice: r.Notice, At: r.FailedAt}
}

// startFailureTable stores the refused starts of threads.
type startFailureTable struct{ db *DB }

func (db *DB) startFailures() startFailureTable { return startFailureTable{db} }

// Add records a refused start of its thread and forgets the thread's
// oldest beyond the newest keptStartFailures.
func (s startFailureTable) Add(ctx context.Context, f auxilia.StartFailure) (auxilia.StartFailure, error) {
	row := startFailureRow{ID: auxilia.NewID(), WorkspaceID: f.WorkspaceID, ThreadID: f.ThreadID, SandboxID: ptr(f.SandboxID),
		SandboxName: f.SandboxName, Reason: f.Reason, Notice: f.Notice, FailedAt: Now()}
	if err := s.db.conn(ctx).Create(&row).Error; err != nil {
		return auxilia.StartFailure{}, err
	}
	err := s.db.conn(ctx).Exec(`DELETE FROM start_failures WHERE thread_id = ? AND id NOT IN
		(SELECT id FROM start_failures WHERE thread_id = ? ORDER BY id DESC LIMIT ?)`, f.ThreadID, f.ThreadID, keptStartFailures).Error
	return row.domain(), err
}

// List returns a page of a thread's refused starts, oldest first.
func (s startFailureTable) List(ctx context.Context, workspaceID, threadID string, req auxilia.PageRequest) (auxilia.Page[auxilia.StartFailure], error) {
	var rows []startFailureRow
	q := s.db.conn(ctx).Where("workspace_id = ? AND thread_id = ?", workspaceID, threadID)
	if err := pageQuery(q, req).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.StartFailure]{}, err
	}
	return toPage(rows, req, func(r startFailureRow) string { return r.ID }, startFailureRow.domain), nil
}

// TenantStartFailures are the refused starts of the workspace's threads.
type TenantStartFailures struct{ t Tenant }

// StartFailures returns the workspace's refused starts.
func (t Tenant) StartFailures() TenantStartFailures { return TenantStartFailures{t} }

// Add records a refused start of a thread of the workspace.
func (s TenantStartFailures) Add(ctx context.Context, f auxilia.StartFailure) (auxilia.StartFailure, error) {
	f.WorkspaceID = s.t.ws
	return s.t.db.startFailures().Add(ctx, f)
}

// List returns a page of the thread's refused starts, oldest first.
func (s TenantStartFailures) List(ctx context.Context, threadID string, req auxilia.PageRequest) (auxilia.Page[auxilia.StartFailure], error) {
	return s.t.db.startFailures().List(ctx, s.t.ws, threadID, req)
}
