package store

import (
	"context"
	"slices"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

type runRow struct {
	ID              string `gorm:"primaryKey"`
	WorkspaceID     string
	AgentID         string
	ThreadID        string
	Status          string
	SandboxID       *string
	InstanceID      *string
	CreatedInstance bool
	Replaced        bool
	Notice          string
	StartedAt       time.Time
	LastActivityAt  time.Time
	EndedAt         *time.Time
	EndedBy         *string
}

func (runRow) TableName() string { return "runs" }

// runColumns are runRow's columns, in the order of its values.
const runColumns = "id, workspace_id, agent_id, thread_id, status, sandbox_id, instance_id, created_instance, replaced, " +
	"notice, started_at, last_activity_at, ended_at, ended_by"

var runInsertSQL = insertSQL("runs", runColumns)

func (r runRow) values() []any {
	return []any{r.ID, r.WorkspaceID, r.AgentID, r.ThreadID, r.Status, r.SandboxID, r.InstanceID, r.CreatedInstance,
		r.Replaced, r.Notice, r.StartedAt, r.LastActivityAt, r.EndedAt, r.EndedBy}
}

// runView is a run with what its answer shows of its thread, sandbox and instance.
type runView struct {
	ID               string
	WorkspaceID      string
	AgentID          string
	ThreadID         string
	Status           string
	SandboxID        *string
	InstanceID       *string
	CreatedInstance  bool
	Replaced         bool
	Notice           string
	StartedAt        time.Time
	LastActivityAt   time.Time
	EndedAt          *time.Time
	EndedBy          *string
	ThreadKey        string
	SandboxName      *string
	SandboxDeletedAt *time.Time
	Provider         *string
	InstanceRef      *string
}

func (r runView) domain() auxilia.Run {
	run := auxilia.Run{ID: r.ID, WorkspaceID: r.WorkspaceID, AgentID: r.AgentID, ThreadID: r.ThreadID, ThreadKey: r.ThreadKey,
		Status: auxilia.RunStatus(r.Status), Created: r.CreatedInstance, Replaced: r.Replaced, Notice: r.Notice,
		StartedAt: r.StartedAt, LastActivityAt: r.LastActivityAt, EndedAt: r.EndedAt}
	run.SandboxID, run.InstanceID = deref(r.SandboxID), deref(r.InstanceID)
	run.SandboxName, run.Provider, run.InstanceRef = deref(r.SandboxName), deref(r.Provider), deref(r.InstanceRef)
	run.SandboxDeleted = r.SandboxDeletedAt != nil
	run.EndedBy = auxilia.RunEnd(deref(r.EndedBy))
	return run
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// runTable stores runs.
type runTable struct{ db *DB }

func (db *DB) runs() runTable { return runTable{db} }

// Start records r's start on its agent's thread keyed r.ThreadKey, at
// r.StartedAt (now when zero): the thread's last run and activity, which
// locks its row for the rest of ctx's transaction; its active run ended,
// completed by this newer one (the database holds one active run per
// thread); and r, active. It returns the run as Get would, taking what Get
// joins (sandbox name and provider, instance ref) from r, and the id of the
// thread's instance (empty for none). A thread not made yet is not found,
// and nothing is written.
func (s runTable) Start(ctx context.Context, r auxilia.Run) (auxilia.Run, string, error) {
	row := startRow(r)
	thread, err := s.db.threads().Ran(ctx, row.WorkspaceID, row.AgentID, r.ThreadKey, row.StartedAt)
	if err != nil {
		return auxilia.Run{}, "", err
	}
	row.ThreadID = thread.ID
	if err := s.replaceActive(ctx, row); err != nil {
		return auxilia.Run{}, "", err
	}
	return started(row, r), deref(thread.InstanceID), nil
}

// StartOnInstance is Start and the run's audit entry e in one round trip
// to Postgres, shared with the records of the starts that come at once
// (together.go), for a run on its thread's instance (r.InstanceID, of the
// thread threadID), outside a transaction: the three statements run as
// one transaction, each written to do nothing unless the thread still has
// that instance, so that none waits for the outcome of another. It
// reports whether the run was recorded: false, and nothing written, on the
// embedded database, in a transaction, when the thread's instance is
// another now, or when its connection was found killed before anything
// was done; the caller then records the run as Start does, in a
// transaction, which tells why (or tries again on another connection).
func (s runTable) StartOnInstance(ctx context.Context, r auxilia.Run, threadID string, e auxilia.AuditEntry) (auxilia.Run, bool, error) {
	if _, inTx := ctx.Value(txKey{}).(*gorm.DB); inTx || s.db.dialect != Postgres || r.InstanceID == "" || threadID == "" {
		return auxilia.Run{}, false, nil
	}
	row := startRow(r)
	row.ThreadID = threadID
	e.ResourceType, e.ResourceID = "run", row.ID
	onInstance := []any{threadID, r.InstanceID}
	writes := []write{
		{startOnInstanceSQL, []any{row.StartedAt, row.StartedAt, threadID, row.WorkspaceID, r.InstanceID}},
		{replaceActiveOnInstanceSQL, slices.Concat(s.endActive(row), onInstance, row.values(), onInstance)},
		{auditOfRunSQL, append(newAuditRow(e).values(), row.ID)}}
	record := &part{order: threadID, writes: writes}
	record.alone = func(ctx context.Context) (err error) {
		record.changed, err = s.db.execBatch(ctx, writes...)
		return err
	}
	err := s.db.records.send(ctx, record)
	if notDone(err) {
		return auxilia.Run{}, false, nil // the transaction tries again on another connection
	}
	if err != nil || record.changed[1] == 0 {
		return auxilia.Run{}, false, err
	}
	return started(row, r), true, nil
}

// startRow is the row of r as it starts, at r.StartedAt (now when zero).
func startRow(r auxilia.Run) runRow {
	now := Now()
	if !r.StartedAt.IsZero() {
		now = r.StartedAt.UTC().Truncate(time.Microsecond)
	}
	row := runRow{ID: r.ID, WorkspaceID: r.WorkspaceID, AgentID: r.AgentID, Status: string(auxilia.RunActive),
		SandboxID: ptr(r.SandboxID), InstanceID: ptr(r.InstanceID), CreatedInstance: r.Created, Replaced: r.Replaced,
		Notice: r.Notice, StartedAt: now, LastActivityAt: now}
	if row.ID == "" {
		row.ID = auxilia.NewID()
	}
	return row
}

// started is the run row records, as Get would return it: what the joined
// read would add, the caller knows (r), so it is not read back.
func started(row runRow, r auxilia.Run) auxilia.Run {
	return runView{ID: row.ID, WorkspaceID: row.WorkspaceID, AgentID: row.AgentID, ThreadID: row.ThreadID, Status: row.Status,
		SandboxID: row.SandboxID, InstanceID: row.InstanceID, CreatedInstance: row.CreatedInstance, Replaced: row.Replaced,
		Notice: row.Notice, StartedAt: row.StartedAt, LastActivityAt: row.LastActivityAt, ThreadKey: r.ThreadKey,
		SandboxName: ptr(r.SandboxName), Provider: ptr(r.Provider), InstanceRef: ptr(r.InstanceRef)}.domain()
}

// replaceActive ends the thread's active run, completed by row, and
// inserts row: in one statement on Postgres. (Not with the thread's own
// update too: a start that waited for the thread's lock must see the run
// the start before it committed, which only a statement begun after the
// wait does.) The insert counts the ended runs first, so that the old run
// is no longer active when the new one is checked against runs_active.
func (s runTable) replaceActive(ctx context.Context, row runRow) error {
	end := s.endActive(row)
	if s.db.dialect == Postgres {
		_, err := s.db.exec(ctx, replaceActiveRunSQL, append(end, row.values()...)...)
		return err
	}
	if _, err := s.db.exec(ctx, endActiveRunSQL, end...); err != nil {
		return err
	}
	_, err := s.db.exec(ctx, runInsertSQL, row.values()...)
	return err
}

// endActive are endActiveRunSQL's arguments: the thread's active run
// completed by row.
func (runTable) endActive(row runRow) []any {
	return []any{string(auxilia.RunCompleted), row.StartedAt, string(auxilia.EndedByNewerRun), row.ThreadID}
}

// endActiveRunSQL finds the thread's active run by runs_active, whatever
// plan the database keeps for it: the status is written out, as the
// index's predicate is, not a parameter. A plan made once for any status
// (Postgres keeps one for a prepared statement once it costs no more than
// planning each time) could not use the index and would read every run
// the thread ever had, at every start.
const endActiveRunSQL = "UPDATE runs SET status = ?, ended_at = ?, ended_by = ? WHERE thread_id = ? AND status = '" +
	string(auxilia.RunActive) + "'"

// insertRunAfterEndedSQL inserts a runRow's values once the runs of the
// statement's "ended" have ended, counting them first.
const insertRunAfterEndedSQL = "INSERT INTO runs (" + runColumns + ") " +
	"SELECT ?::uuid, ?::uuid, ?::uuid, ?::uuid, ?, ?::uuid, ?::uuid, ?::boolean, ?::boolean, ?, ?::timestamptz, " +
	"?::timestamptz, ?::timestamptz, ? FROM (SELECT COUNT(*) FROM ended) AS ended_first"

// replaceActiveRunSQL takes endActiveRunSQL's arguments, then a runRow's values.
const replaceActiveRunSQL = "WITH ended AS (" + endActiveRunSQL + " RETURNING id) " + insertRunAfterEndedSQL

// The statements of StartOnInstance. threadHasInstanceSQL takes the
// thread's id and the instance's.
const (
	threadHasInstanceSQL = "SELECT 1 FROM threads WHERE id = ? AND instance_id = ?::uuid"
	startOnInstanceSQL   = "UPDATE threads SET last_run_at = ?, last_activity_at = ? WHERE id = ? AND workspace_id = ? AND instance_id = ?::uuid"
	// replaceActiveOnInstanceSQL takes endActiveRunSQL's arguments, the
	// thread and instance, a runRow's values, and the thread and instance again.
	replaceActiveOnInstanceSQL = "WITH ended AS (" + endActiveRunSQL + " AND EXISTS (" + threadHasInstanceSQL + ") RETURNING id) " +
		insertRunAfterEndedSQL + " WHERE EXISTS (" + threadHasInstanceSQL + ")"
	// auditOfRunSQL takes an auditRow's values, then the run's id.
	auditOfRunSQL = "INSERT INTO audit_entries (" + auditColumns + ") " +
		"SELECT ?::uuid, ?::uuid, ?::timestamptz, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?)"
)

func (s runTable) joined(ctx context.Context) *gorm.DB {
	return s.db.conn(ctx).Table("runs").
		Select("runs.*, threads.thread_key, sandboxes.name AS sandbox_name, sandboxes.deleted_at AS sandbox_deleted_at, " +
			"sandboxes.provider, instances.provider_ref AS instance_ref").
		Joins("JOIN threads ON threads.id = runs.thread_id").
		Joins("LEFT JOIN sandboxes ON sandboxes.id = runs.sandbox_id").
		Joins("LEFT JOIN instances ON instances.id = runs.instance_id")
}

// Get returns a run of the workspace.
func (s runTable) Get(ctx context.Context, workspaceID, id string) (auxilia.Run, error) {
	var v runView
	if err := s.joined(ctx).Where("runs.workspace_id = ? AND runs.id = ?", workspaceID, id).Take(&v).Error; err != nil {
		return auxilia.Run{}, notFound(err, "run")
	}
	return v.domain(), nil
}

// List returns a page of a thread's runs.
func (s runTable) List(ctx context.Context, threadID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error) {
	q := s.joined(ctx).Where("runs.thread_id = ?", threadID)
	if req.After != "" {
		q = q.Where("runs.id > ?", req.After)
	}
	var views []runView
	if err := q.Order("runs.id").Limit(req.Size + 1).Find(&views).Error; err != nil {
		return auxilia.Page[auxilia.Run]{}, err
	}
	return toPage(views, req, func(v runView) string { return v.ID }, runView.domain), nil
}

// Touch records a tool call on an active run, at most once per `every`.
func (s runTable) Touch(ctx context.Context, id string, at time.Time, every time.Duration) error {
	res := s.db.conn(ctx).Model(&runRow{}).
		Where("id = ? AND status = ? AND last_activity_at < ?", id, auxilia.RunActive, at.Add(-every)).
		UpdateColumn("last_activity_at", at)
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	// A tool call is the thread's activity too: it keeps its instance from pausing.
	return s.db.conn(ctx).Exec("UPDATE threads SET last_activity_at = ? WHERE id = (SELECT thread_id FROM runs WHERE id = ?)", at, id).Error
}

// End ends an active run with status: completed by its caller, or expired
// for idleness; it reports whether the run was still active.
func (s runTable) End(ctx context.Context, id string, status auxilia.RunStatus) (bool, error) {
	by := auxilia.EndedByCaller
	if status == auxilia.RunExpired {
		by = auxilia.EndedByIdle
	}
	res := s.db.conn(ctx).Model(&runRow{}).Where("id = ? AND status = ?", id, auxilia.RunActive).
		UpdateColumns(map[string]any{"status": status, "ended_at": Now(), "ended_by": by})
	return res.RowsAffected == 1, res.Error
}

// EndForSandbox ends the workspace's active runs on the sandbox
// (completed), telling each why in its notice; it returns how many.
func (s runTable) EndForSandbox(ctx context.Context, workspaceID, sandboxID, notice string) (int64, error) {
	res := s.db.conn(ctx).Model(&runRow{}).
		Where("workspace_id = ? AND sandbox_id = ? AND status = ?", workspaceID, sandboxID, auxilia.RunActive).
		UpdateColumns(map[string]any{"status": auxilia.RunCompleted, "ended_at": Now(), "ended_by": auxilia.EndedBySandboxDeleted, "notice": notice})
	return res.RowsAffected, res.Error
}

// EndForAgent ends the open runs of the agent the same way.
func (s runTable) EndForAgent(ctx context.Context, workspaceID, agentID, notice string) (int64, error) {
	res := s.db.conn(ctx).Model(&runRow{}).
		Where("workspace_id = ? AND agent_id = ? AND status = ?", workspaceID, agentID, auxilia.RunActive).
		UpdateColumns(map[string]any{"status": auxilia.RunCompleted, "ended_at": Now(), "ended_by": auxilia.EndedByAgentUnbound, "notice": notice})
	return res.RowsAffected, res.Error
}

// Idle returns up to limit active runs with no activity since `before`.
func (s runTable) Idle(ctx context.Context, before time.Time, limit int) ([]auxilia.Run, error) {
	var views []runView
	err := s.joined(ctx).Where("runs.status = ? AND runs.last_activity_at < ?", auxilia.RunActive, before).
		Order("runs.last_activity_at").Limit(limit).Find(&views).Error
	out := make([]auxilia.Run, len(views))
	for i, v := range views {
		out[i] = v.domain()
	}
	return out, err
}
