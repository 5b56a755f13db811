package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm/clause"
)

type approvalRow struct {
	ID            string `gorm:"primaryKey"`
	WorkspaceID   string
	RunID         string
	ThreadID      string
	Tool          string
	Arguments     string
	ArgumentsCut  bool
	Fingerprint   string
	Status        string
	RequestedBy   string
	RequestedByID string
	Via           string
	RequestedAt   time.Time
	DecidedBy     string
	DecidedAt     *time.Time
	UsedAt        *time.Time
}

func (approvalRow) TableName() string { return "approvals" }

func (r approvalRow) domain() auxilia.Approval {
	a := auxilia.Approval{ID: r.ID, WorkspaceID: r.WorkspaceID, RunID: r.RunID, ThreadID: r.ThreadID, Tool: r.Tool,
		ArgumentsCut: r.ArgumentsCut, Fingerprint: r.Fingerprint, Status: auxilia.ApprovalStatus(r.Status),
		RequestedBy: r.RequestedBy, RequestedByID: r.RequestedByID, Via: r.Via, RequestedAt: r.RequestedAt, DecidedBy: r.DecidedBy,
		DecidedAt: r.DecidedAt, UsedAt: r.UsedAt}
	_ = json.Unmarshal([]byte(r.Arguments), &a.Arguments) // written by Request, always an object
	return a
}

// approvalTable stores the approvals tool calls wait for.
type approvalTable struct{ db *DB }

func (db *DB) approvals() approvalTable { return approvalTable{db} }

// pendingCallSQL is the pending approval of a call of a thread, tool and
// arguments, found by approvals_pending on whatever plan the database
// keeps for the statement: the status is written out, as the index's
// predicate is, not a parameter (see endActiveRunSQL).
const pendingCallSQL = "thread_id = ? AND tool = ? AND fingerprint = ? AND status = '" + string(auxilia.ApprovalPending) + "'"

// Request records a pending approval of a call, or returns the one already
// pending for the same thread, tool and arguments.
func (s approvalTable) Request(ctx context.Context, a auxilia.Approval) (auxilia.Approval, error) {
	args, err := json.Marshal(a.Arguments)
	if err != nil {
		return auxilia.Approval{}, err
	}
	row := approvalRow{ID: auxilia.NewID(), WorkspaceID: a.WorkspaceID, RunID: a.RunID, ThreadID: a.ThreadID, Tool: a.Tool,
		Arguments: string(args), ArgumentsCut: a.ArgumentsCut, Fingerprint: a.Fingerprint, Status: string(auxilia.ApprovalPending),
		RequestedBy: a.RequestedBy, RequestedByID: a.RequestedByID, Via: a.Via, RequestedAt: Now()}
	if err := s.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error; err != nil {
		return auxilia.Approval{}, err
	}
	var got approvalRow
	err = s.db.conn(ctx).Where(pendingCallSQL, a.ThreadID, a.Tool, a.Fingerprint).Take(&got).Error
	if err != nil {
		// Decided between the insert and the read: the next repeat uses it.
		return auxilia.Approval{}, notFound(err, "approval")
	}
	return got.domain(), nil
}

// Use takes the oldest unused decision of a call of the thread, tool and
// arguments, marking it used: of two calls that race for it, one gets it.
// It returns false when there is none.
func (s approvalTable) Use(ctx context.Context, threadID, tool, fingerprint string) (auxilia.Approval, bool, error) {
	for {
		var row approvalRow
		err := s.db.conn(ctx).Where("thread_id = ? AND tool = ? AND fingerprint = ? AND status <> ? AND used_at IS NULL",
			threadID, tool, fingerprint, auxilia.ApprovalPending).Order("decided_at").Limit(1).Find(&row).Error
		if err != nil || row.ID == "" {
			return auxilia.Approval{}, false, err
		}
		now := Now()
		res := s.db.conn(ctx).Model(&approvalRow{}).Where("id = ? AND used_at IS NULL", row.ID).UpdateColumn("used_at", now)
		if res.Error != nil {
			return auxilia.Approval{}, false, res.Error
		}
		if res.RowsAffected == 1 {
			row.UsedAt = &now
			return row.domain(), true, nil
		}
		// Another call used it first: look for the next.
	}
}

// Settle records that a person approved the call of the thread, tool and
// arguments when the caller made it (approved by its header): its pending
// approval, if any, is decided and used at once.
func (s approvalTable) Settle(ctx context.Context, threadID, tool, fingerprint, by string) error {
	now := Now()
	return s.db.conn(ctx).Model(&approvalRow{}).
		Where(pendingCallSQL, threadID, tool, fingerprint).
		UpdateColumns(map[string]any{"status": string(auxilia.ApprovalApproved), "decided_by": by, "decided_at": now, "used_at": now}).Error
}

// Decide records a person's decision on a pending approval of the
// thread's calls. A decided approval is a conflict; another thread's, not found.
func (s approvalTable) Decide(ctx context.Context, workspaceID, threadID, id string, status auxilia.ApprovalStatus, by string) (auxilia.Approval, error) {
	now := Now()
	res := s.db.conn(ctx).Model(&approvalRow{}).
		Where("workspace_id = ? AND thread_id = ? AND id = ? AND status = ?", workspaceID, threadID, id, auxilia.ApprovalPending).
		UpdateColumns(map[string]any{"status": string(status), "decided_by": by, "decided_at": now})
	if res.Error != nil {
		return auxilia.Approval{}, res.Error
	}
	a, err := s.Get(ctx, workspaceID, threadID, id)
	if err != nil || res.RowsAffected == 1 {
		return a, err
	}
	return a, auxilia.Errorf(auxilia.CodeConflict, "This call was already %s by %s.", a.Status, a.DecidedBy).With("status", string(a.Status))
}

// Get returns an approval of the thread's calls.
func (s approvalTable) Get(ctx context.Context, workspaceID, threadID, id string) (auxilia.Approval, error) {
	var row approvalRow
	if err := s.db.conn(ctx).Where("workspace_id = ? AND thread_id = ? AND id = ?", workspaceID, threadID, id).Take(&row).Error; err != nil {
		return auxilia.Approval{}, notFound(err, "approval")
	}
	return row.domain(), nil
}

// List returns the thread's approvals, newest first, at most limit.
func (s approvalTable) List(ctx context.Context, workspaceID, threadID string, limit int) ([]auxilia.Approval, error) {
	var rows []approvalRow
	err := s.db.conn(ctx).Where("workspace_id = ? AND thread_id = ?", workspaceID, threadID).
		Order("requested_at DESC, id DESC").Limit(limit).Find(&rows).Error
	out := make([]auxilia.Approval, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}
