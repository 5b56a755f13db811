package store

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type threadRow struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	AgentID     string
	ThreadKey   string
	InstanceID  *string
	LastRunAt   *time.Time
	// LastActivityAt is the last run start or tool call.
	LastActivityAt *time.Time
	CreatedAt      time.Time
}

func (threadRow) TableName() string { return "threads" }

func (r threadRow) domain() auxilia.Thread {
	return auxilia.Thread{ID: r.ID, WorkspaceID: r.WorkspaceID, AgentID: r.AgentID, Key: r.ThreadKey,
		LastRunAt: r.LastRunAt, LastActivityAt: r.LastActivityAt, CreatedAt: r.CreatedAt}
}

// threadTable stores agents' conversation threads.
type threadTable struct{ db *DB }

func (db *DB) threads() threadTable { return threadTable{db} }

// Lock returns the agent's thread keyed key, creating it when missing, and
// locks it for the rest of ctx's transaction: concurrent run starts on one
// thread pass here one at a time, in every process.
func (s threadTable) Lock(ctx context.Context, workspaceID, agentID, key string) (auxilia.Thread, error) {
	// Most threads locked here are new: a thread's warm start reconnects its
	// live instance without the lock. So the row is made first, in one
	// statement, and a row made here is this transaction's alone until it
	// commits: it has neither kept files nor an instance to read. A
	// concurrent making of the same one waits on the unique key, then does
	// nothing, and locks the one row.
	row := threadRow{ID: auxilia.NewID(), WorkspaceID: workspaceID, AgentID: agentID, ThreadKey: key, CreatedAt: Now()}
	made, err := s.db.exec(ctx, newThreadSQL, row.ID, row.WorkspaceID, row.AgentID, row.ThreadKey, row.CreatedAt)
	if err != nil {
		return auxilia.Thread{}, err
	}
	if made == 1 {
		return row.domain(), nil
	}
	locked, err := s.lockRow(ctx, agentID, key)
	if err != nil {
		return auxilia.Thread{}, err
	}
	return s.withInstance(ctx, locked)
}

// newThreadSQL makes a thread, unless the agent has one of that key.
const newThreadSQL = "INSERT INTO threads (id, workspace_id, agent_id, thread_key, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"

// LockExisting is Lock for a thread that must exist already: a missing one
// is not found, not made.
func (s threadTable) LockExisting(ctx context.Context, workspaceID, agentID, key string) (auxilia.Thread, error) {
	row, err := s.lockRow(ctx, agentID, key)
	if err == nil && row.WorkspaceID != workspaceID {
		err = gorm.ErrRecordNotFound
	}
	if err != nil {
		return auxilia.Thread{}, notFound(err, "thread")
	}
	return s.withInstance(ctx, row)
}

// lockRow reads the thread's row, locked for the transaction on Postgres
// (SQLite transactions hold the whole database already).
func (s threadTable) lockRow(ctx context.Context, agentID, key string) (threadRow, error) {
	q := s.db.conn(ctx).Where("agent_id = ? AND thread_key = ?", agentID, key)
	if s.db.dialect == Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var row threadRow
	err := q.Take(&row).Error
	return row, err
}

// Get returns the agent's thread keyed key, with its instance.
func (s threadTable) Get(ctx context.Context, workspaceID, agentID, key string) (auxilia.Thread, error) {
	var row threadRow
	err := s.db.conn(ctx).Where("workspace_id = ? AND agent_id = ? AND thread_key = ?", workspaceID, agentID, key).Take(&row).Error
	if err != nil {
		return auxilia.Thread{}, notFound(err, "thread")
	}
	return s.withInstance(ctx, row)
}

func (s threadTable) withInstance(ctx context.Context, row threadRow) (auxilia.Thread, error) {
	t := row.domain()
	kept, err := s.db.kept().newest(ctx, []string{row.ID})
	if err != nil {
		return t, err
	}
	t.Kept = kept[row.ID]
	if row.InstanceID == nil {
		return t, nil
	}
	inst, err := s.db.instances().Get(ctx, *row.InstanceID)
	if errors.Is(err, gorm.ErrRecordNotFound) || auxilia.IsCode(err, auxilia.CodeNotFound) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	t.Instance = &inst
	return t, nil
}

// List returns a page of the agent's threads, each with its instance.
func (s threadTable) List(ctx context.Context, workspaceID, agentID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Thread], error) {
	var rows []threadRow
	q := s.db.conn(ctx).Where("workspace_id = ? AND agent_id = ?", workspaceID, agentID)
	if err := pageQuery(q, req).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.Thread]{}, err
	}
	page := toPage(rows, req, func(r threadRow) string { return r.ID }, func(r threadRow) threadRow { return r })
	// The page's instances in one query, not one per thread.
	var ids []string
	for _, r := range page.Items {
		if r.InstanceID != nil {
			ids = append(ids, *r.InstanceID)
		}
	}
	instances := map[string]auxilia.Instance{}
	if len(ids) > 0 {
		var found []instanceRow
		if err := s.db.conn(ctx).Where("id IN ?", ids).Find(&found).Error; err != nil {
			return auxilia.Page[auxilia.Thread]{}, err
		}
		for _, row := range found {
			instances[row.ID] = row.domain()
		}
	}
	threadIDs := make([]string, len(page.Items))
	for i, r := range page.Items {
		threadIDs[i] = r.ID
	}
	kept, err := s.db.kept().newest(ctx, threadIDs)
	if err != nil {
		return auxilia.Page[auxilia.Thread]{}, err
	}
	out := auxilia.Page[auxilia.Thread]{Next: page.Next, Items: make([]auxilia.Thread, 0, len(page.Items))}
	for _, r := range page.Items {
		t := r.domain()
		t.Kept = kept[r.ID]
		if r.InstanceID != nil {
			if inst, ok := instances[*r.InstanceID]; ok {
				t.Instance = &inst
			}
		}
		out.Items = append(out.Items, t)
	}
	return out, nil
}

// Ran records that a run starts on the agent's thread keyed key at `at`
// (its last activity too), and returns the thread's id and its instance's.
// The update locks the row for the rest of ctx's transaction, as Lock
// does. A thread not made yet is not found.
func (s threadTable) Ran(ctx context.Context, workspaceID, agentID, key string, at time.Time) (threadRan, error) {
	rows, err := findRows[threadRan](ctx, s.db, `UPDATE threads SET last_run_at = ?, last_activity_at = ?
		WHERE workspace_id = ? AND agent_id = ? AND thread_key = ? RETURNING id, instance_id`,
		at, at, workspaceID, agentID, key)
	if err != nil {
		return threadRan{}, err
	}
	if len(rows) == 0 {
		return threadRan{}, auxilia.Errorf(auxilia.CodeNotFound, "thread not found")
	}
	return rows[0], nil
}

// threadRan is what Ran returns of the thread.
type threadRan struct {
	ID         string
	InstanceID *string
}

func (r *threadRan) scanTargets() []any { return []any{&r.ID, &r.InstanceID} }

// StartView reads, in one round trip without a lock, what a run start
// of the agent on its thread keyed key looks at first: the thread's live
// instance (none when the thread has none, or is not made yet), the agent
// with its binding, and the sandbox bound, sealed secret and all. An
// agent that is not there is CodeNotFound. On Postgres, outside a
// transaction, the same round trip claims as claim asks, if it does, for a
// thread not made yet (claimInViewSQL); elsewhere the view tries no claim.
// A view that claims nothing there shares its round trip with the views of
// the starts that come at once (together.go); one that claims goes alone,
// since the claims of one batch would run one after the other.
func (s threadTable) StartView(ctx context.Context, workspaceID, agentID, key string, claim *auxilia.PoolClaim) (auxilia.StartView, error) {
	var v startView
	var err error
	switch {
	case !s.db.batches(ctx):
		err = s.db.readAll(ctx, v.reads(s.db, workspaceID, agentID, key, nil)...)
	case claim != nil:
		err = s.db.readAll(ctx, v.reads(s.db, workspaceID, agentID, key, claim)...)
	default:
		view := &part{reads: v.reads(s.db, workspaceID, agentID, key, nil)}
		view.alone = func(ctx context.Context) error {
			v = startView{}
			return s.db.readAll(ctx, v.reads(s.db, workspaceID, agentID, key, nil)...)
		}
		err = s.db.views.send(ctx, view)
	}
	if err = withContextError(ctx, err); err != nil || !v.found {
		return auxilia.StartView{}, notFound(cmp.Or(err, gorm.ErrRecordNotFound), "agent")
	}
	return v.domain(), nil
}

// startView is what StartView's reads scan.
type startView struct {
	live, found, tried bool
	inst               instanceRow
	agent              agentBindingView
	sb                 sandboxRow
	claimed            []instanceRow
}

// reads are StartView's reads, which scan into v; the pool's claim among
// them when claim is given.
func (v *startView) reads(db *DB, workspaceID, agentID, key string, claim *auxilia.PoolClaim) []read {
	reads := []read{
		{liveInstanceSQL, []any{workspaceID, agentID, key, string(auxilia.InstanceLive)}, func(scan func(...any) error) error {
			v.live = true
			return scan(v.inst.scanTargets()...)
		}},
		{agentWithBindingSQL, []any{workspaceID, agentID}, func(scan func(...any) error) error {
			v.found = true
			return scan(v.agent.scanTargets()...)
		}},
		{boundSandboxSQL, []any{workspaceID, agentID}, func(scan func(...any) error) error {
			return scan(v.sb.scanTargets()...)
		}}}
	if claim != nil {
		v.tried = true
		reads = append(reads, db.pools().claimInView(workspaceID, agentID, key, *claim, &v.claimed))
	}
	return reads
}

// domain is the view v scanned.
func (v *startView) domain() auxilia.StartView {
	out := auxilia.StartView{Live: v.live, Agent: v.agent.domain()}
	out.Claim.Tried = v.tried
	if v.live {
		out.Instance = v.inst.domain()
	}
	if len(v.claimed) > 0 {
		got := v.claimed[0].domain()
		out.Claim.Instance = &got
	}
	if v.sb.ID != "" {
		out.Sandbox, out.Sealed = v.sb.domain(), v.sb.sealed()
	}
	return out
}

var liveInstanceSQL = "SELECT " + qualified("instances", instanceColumns) +
	" FROM threads JOIN instances ON instances.id = threads.instance_id" +
	" WHERE threads.workspace_id = ? AND threads.agent_id = ? AND threads.thread_key = ? AND instances.status = ? LIMIT 1"

// boundSandboxSQL reads the live sandbox an agent is bound to.
var boundSandboxSQL = boundSandboxSelect + " WHERE sandboxes.workspace_id = ? AND bindings.agent_id = ? AND sandboxes.deleted_at IS NULL LIMIT 1"

// boundSandboxSelect reads sandboxes with their bindings.
var boundSandboxSelect = "SELECT " + qualified("sandboxes", sandboxColumns) +
	" FROM bindings JOIN sandboxes ON sandboxes.id = bindings.sandbox_id"

// IdlePage returns up to limit threads, by id after `after`, whose live,
// unpaused instance has seen no activity since `before`, each with its
// instance and kept files: what the idle job may pause or keep.
func (s threadTable) IdlePage(ctx context.Context, after string, before time.Time, limit int) ([]auxilia.Thread, error) {
	var rows []threadRow
	q := s.db.conn(ctx).Model(&threadRow{}).Select("threads.*").
		Joins("JOIN instances i ON i.id = threads.instance_id").
		Where("i.status = ? AND i.paused_at IS NULL AND threads.last_activity_at < ?", auxilia.InstanceLive, before)
	if after != "" {
		q = q.Where("threads.id > ?", after)
	}
	if err := q.Order("threads.id").Limit(limit).Find(&rows).Error; err != nil {
		return nil, err
	}
	return s.withInstances(ctx, rows)
}

// IdleInWorkspace returns up to limit of the workspace's threads whose live,
// unpaused instance has seen no activity since before, the longest idle
// first: what an exhausted instance-hours quota pauses.
func (s threadTable) IdleInWorkspace(ctx context.Context, workspaceID string, before time.Time, limit int) ([]auxilia.Thread, error) {
	var rows []threadRow
	if err := s.db.conn(ctx).Model(&threadRow{}).Select("threads.*").
		Joins("JOIN instances i ON i.id = threads.instance_id").
		Where("i.workspace_id = ? AND i.status = ? AND i.paused_at IS NULL AND threads.last_activity_at < ?",
			workspaceID, auxilia.InstanceLive, before).
		Order("threads.last_activity_at, threads.id").Limit(limit).Find(&rows).Error; err != nil {
		return nil, err
	}
	return s.withInstances(ctx, rows)
}

// withInstances reads each thread's instance, as withInstance does.
func (s threadTable) withInstances(ctx context.Context, rows []threadRow) ([]auxilia.Thread, error) {
	out := make([]auxilia.Thread, 0, len(rows))
	for _, r := range rows {
		t, err := s.withInstance(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Delete removes a thread with its runs.
func (s threadTable) Delete(ctx context.Context, id string) error {
	return s.db.conn(ctx).Where("id = ?", id).Delete(&threadRow{}).Error
}
