package store

import (
	"context"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type poolRow struct {
	SandboxID string `gorm:"primaryKey"`
	Version   int
	Failures  int
	LastError string
	RetryAt   *time.Time
	StoppedAt *time.Time
	UpdatedAt time.Time
}

func (poolRow) TableName() string { return "pools" }

// poolTable keeps warm pools: the instances made ahead of any thread (rows of
// instances with a pool_version and no thread) and each pool's failures.
type poolTable struct{ db *DB }

func (db *DB) pools() poolTable { return poolTable{db} }

// unclaimed are a sandbox's pool instances no thread has claimed yet.
func (s poolTable) unclaimed(ctx context.Context, sandboxID string) *gorm.DB {
	return s.db.conn(ctx).Model(&instanceRow{}).
		Where("sandbox_id = ? AND pool_version IS NOT NULL AND thread_id IS NULL", sandboxID)
}

// Add records that the pool is creating an instance of the sandbox's
// version, until lease: an instance of no thread yet. It refuses with
// quota_exceeded when the workspace's instances quota leaves no room.
func (s poolTable) Add(ctx context.Context, sb auxilia.Sandbox, lease time.Time) (auxilia.Instance, error) {
	now := Now()
	version := sb.Version
	row := instanceRow{ID: auxilia.NewID(), WorkspaceID: sb.WorkspaceID, SandboxID: sb.ID, PoolVersion: &version,
		Status: string(auxilia.InstanceCreating), LeaseUntil: &lease, CreatedAt: now, UpdatedAt: now}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.quotas().admit(ctx, sb.WorkspaceID, "", true); err != nil {
			return err
		}
		return s.db.conn(ctx).Create(&row).Error
	})
	return row.domain(), err
}

// Claim gives the thread a ready instance made from the sandbox's version
// and live since freshAfter, if there is one, and points the thread at it.
// Concurrent claims never take the same instance: on Postgres each skips
// the rows others have locked; SQLite runs one transaction at a time.
// The thread's agent must have room for one more thread with an instance.
func (s poolTable) Claim(ctx context.Context, t auxilia.Thread, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error) {
	var (
		out auxilia.Instance
		ok  bool
	)
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.quotas().admit(ctx, sb.WorkspaceID, t.AgentID, false); err != nil {
			return err
		}
		var err error
		out, ok, err = s.claim(ctx, t, sb, freshAfter)
		return err
	})
	return out, ok, err
}

func (s poolTable) claim(ctx context.Context, t auxilia.Thread, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error) {
	pick := "SELECT id FROM instances WHERE sandbox_id = ? AND pool_version = ? AND thread_id IS NULL AND status = ? AND updated_at > ? ORDER BY updated_at LIMIT 1"
	if s.db.dialect == Postgres {
		pick += " FOR UPDATE SKIP LOCKED"
	}
	rows, err := findRows[instanceRow](ctx, s.db, "UPDATE instances SET thread_id = ?, updated_at = ? WHERE id = ("+pick+
		") AND thread_id IS NULL RETURNING "+instanceColumns, t.ID, Now(), sb.ID, sb.Version, string(auxilia.InstanceLive), freshAfter)
	if err != nil || len(rows) == 0 {
		return auxilia.Instance{}, false, err
	}
	if _, err := s.db.exec(ctx, "UPDATE threads SET instance_id = ? WHERE id = ?", rows[0].ID, t.ID); err != nil {
		return auxilia.Instance{}, false, err
	}
	return rows[0].domain(), true, nil
}

// ClaimForNewThread makes the agent's thread keyed key, with a ready
// instance of the sandbox's warm pool as its own: on Postgres in one
// statement, without a transaction of its own or the thread's lock, so that
// a new thread's start a pool serves costs one round trip before its
// provider's. It makes nothing, and says so, when the thread exists
// already, when the pool has no ready instance, or when the workspace bounds
// its agents' threads (the claim under the thread's lock counts them): the
// start then chooses as any other. The instance is picked and claimed as
// Claim picks and claims it.
func (s poolTable) ClaimForNewThread(ctx context.Context, workspaceID, agentID, key string, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error) {
	now := Now()
	thread := threadRow{ID: auxilia.NewID(), WorkspaceID: workspaceID, AgentID: agentID, ThreadKey: key, CreatedAt: now}
	if s.db.dialect == Postgres {
		rows, err := findRows[instanceRow](ctx, s.db, claimForNewThreadSQL,
			sb.ID, workspaceID, sb.Version, string(auxilia.InstanceLive), freshAfter, workspaceID, s.db.quotaDefaults.ThreadsPerAgent,
			thread.ID, thread.WorkspaceID, thread.AgentID, thread.ThreadKey, thread.CreatedAt, now)
		if err != nil || len(rows) == 0 {
			return auxilia.Instance{}, false, err
		}
		return rows[0].domain(), true, nil
	}
	var (
		out auxilia.Instance
		ok  bool
	)
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if bounded, err := s.db.quotas().boundsThreads(ctx, workspaceID); bounded || err != nil {
			return err
		}
		made, err := s.db.exec(ctx, newThreadSQL, thread.ID, thread.WorkspaceID, thread.AgentID, thread.ThreadKey, thread.CreatedAt)
		if err != nil || made == 0 {
			return err
		}
		if out, ok, err = s.claim(ctx, thread.domain(), sb, freshAfter); err == nil && !ok {
			return errNoneReady // the thread is not made either
		}
		return err
	})
	if errors.Is(err, errNoneReady) {
		err = nil
	}
	return out, ok, err
}

// errNoneReady rolls back a new thread for which its pool had no instance.
var errNoneReady = errors.New("store: no pool instance is ready")

// claimForNewThreadSQL picks a ready pool instance as Claim does, unless
// the workspace's own or default threads-per-agent quota bounds it; makes
// the thread with it, unless the agent has the thread already; and gives
// the instance to the thread made. Each part runs only on what the one
// before it returned, so the statement does all or nothing. The pick's row
// lock holds until the statement ends, as a concurrent making of the same
// thread is waited for, on its key, and nothing is done.
var claimForNewThreadSQL = claimForNewThread("")

// claimInViewSQL is claimForNewThreadSQL as a run start's view sends it,
// before the start has seen its agent: it picks nothing unless the agent
// is bound still to the sandbox at the version the claim names (its pool's
// size and freshness are the version's), and nothing for a thread made
// already, which a warm start's view then costs no more than two lookups.
var claimInViewSQL = claimForNewThread(`
		AND EXISTS (SELECT 1 FROM bindings JOIN sandboxes ON sandboxes.id = bindings.sandbox_id
			WHERE bindings.agent_id = ? AND sandboxes.id = ? AND sandboxes.version = ? AND sandboxes.deleted_at IS NULL)
		AND NOT EXISTS (SELECT 1 FROM threads WHERE workspace_id = ? AND agent_id = ? AND thread_key = ?)`)

// claimForNewThread is the statement that claims a pool instance for a new
// thread, its pick narrowed by guard.
func claimForNewThread(guard string) string {
	return `WITH pick AS (
	SELECT id FROM instances
	WHERE sandbox_id = ? AND workspace_id = ? AND pool_version = ? AND thread_id IS NULL AND status = ? AND updated_at > ?
		AND COALESCE((SELECT threads_per_agent FROM workspace_quotas WHERE workspace_id = ?), ?) <= 0` + guard + `
	ORDER BY updated_at LIMIT 1 FOR UPDATE SKIP LOCKED
), made AS (
	INSERT INTO threads (id, workspace_id, agent_id, thread_key, created_at, instance_id)
	SELECT ?, ?, ?, ?, ?, id FROM pick
	ON CONFLICT DO NOTHING
	RETURNING id, instance_id
)
UPDATE instances SET thread_id = made.id, updated_at = ? FROM made WHERE instances.id = made.instance_id
RETURNING ` + qualified("instances", instanceColumns)
}

// claimInView is the read a run start's view (threadTable.StartView)
// sends last to claim as c asks for the agent's thread keyed key: its
// rows, the instance claimed or none, are scanned into claimed.
func (s poolTable) claimInView(workspaceID, agentID, key string, c auxilia.PoolClaim, claimed *[]instanceRow) read {
	now := Now()
	thread := auxilia.NewID()
	return read{claimInViewSQL, []any{c.SandboxID, workspaceID, c.Version, string(auxilia.InstanceLive), c.FreshAfter,
		workspaceID, s.db.quotaDefaults.ThreadsPerAgent,
		agentID, c.SandboxID, c.Version, workspaceID, agentID, key,
		thread, workspaceID, agentID, key, now, now},
		func(scan func(...any) error) error {
			var r instanceRow
			if err := scan(r.scanTargets()...); err != nil {
				return err
			}
			*claimed = append(*claimed, r)
			return nil
		}}
}

// Count returns how many of the sandbox's unclaimed pool instances of its
// version are ready (live since freshAfter) and being created (by a creator
// still within its lease: a dead creator's create is on no one's way).
func (s poolTable) Count(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (ready, creating int, err error) {
	var counts []struct {
		Status string
		N      int
	}
	err = s.unclaimed(ctx, sb.ID).Select("status, COUNT(*) AS n").
		Where("pool_version = ? AND ((status = ? AND lease_until > ?) OR (status = ? AND updated_at > ?))",
			sb.Version, auxilia.InstanceCreating, Now(), auxilia.InstanceLive, freshAfter).
		Group("status").Scan(&counts).Error
	for _, c := range counts {
		if c.Status == string(auxilia.InstanceLive) {
			ready = c.N
		} else {
			creating = c.N
		}
	}
	return ready, creating, err
}

// Running returns up to limit of the workspace's unclaimed pool instances
// that are live and not paused, the longest ready first: what an exhausted
// instance-hours quota pauses before any thread's instance.
func (s poolTable) Running(ctx context.Context, workspaceID string, limit int) ([]auxilia.Instance, error) {
	var rows []instanceRow
	err := s.db.conn(ctx).Where("workspace_id = ? AND pool_version IS NOT NULL AND thread_id IS NULL AND status = ? AND paused_at IS NULL",
		workspaceID, auxilia.InstanceLive).Order("updated_at, id").Limit(limit).Find(&rows).Error
	out := make([]auxilia.Instance, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}

// MarkPaused records that an unclaimed live pool instance is being paused,
// unless a thread claimed it meanwhile (a claim after this hands the thread
// an instance marked paused, which its run resumes), it is paused already
// or no longer live; it reports whether it was marked. Its updated_at, the
// time it became ready, is left as it is: a paused instance is handed out
// and retired as it would have been running (the usage meter ends its
// running interval at paused_at). The instances table's MarkResumed takes
// the mark back.
func (s poolTable) MarkPaused(ctx context.Context, id string, at time.Time) (bool, error) {
	res := s.db.conn(ctx).Model(&instanceRow{}).
		Where("id = ? AND pool_version IS NOT NULL AND thread_id IS NULL AND status = ? AND paused_at IS NULL", id, auxilia.InstanceLive).
		UpdateColumn("paused_at", at)
	return res.RowsAffected == 1, res.Error
}

// Paused returns how many of the sandbox's ready pool instances (as Count
// counts them) are paused.
func (s poolTable) Paused(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (int, error) {
	var n int64
	err := s.unclaimed(ctx, sb.ID).
		Where("pool_version = ? AND status = ? AND updated_at > ? AND paused_at IS NOT NULL", sb.Version, auxilia.InstanceLive, freshAfter).
		Count(&n).Error
	return int(n), err
}

// Retire releases, for the reaper to destroy, the sandbox's unclaimed pool
// instances that may no longer be handed out: made from another version,
// live since before freshAfter, or beyond size (the newest are kept). It
// returns how many it released.
func (s poolTable) Retire(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time, size int) (int64, error) {
	var retired int64
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		res := s.unclaimed(ctx, sb.ID).Where("status IN ?", activeInstance).
			Where("pool_version <> ? OR (status = ? AND updated_at <= ?)", sb.Version, auxilia.InstanceLive, freshAfter).
			UpdateColumns(map[string]any{"status": auxilia.InstanceReleased, "lease_until": nil, "updated_at": Now()})
		if res.Error != nil {
			return res.Error
		}
		retired = res.RowsAffected
		var surplus []string
		if err := s.unclaimed(ctx, sb.ID).Where("status IN ?", activeInstance).
			Order("updated_at DESC").Offset(size).Limit(1<<20).Pluck("id", &surplus).Error; err != nil || len(surplus) == 0 {
			return err
		}
		res = s.unclaimed(ctx, sb.ID).Where("id IN ?", surplus).
			UpdateColumns(map[string]any{"status": auxilia.InstanceReleased, "lease_until": nil, "updated_at": Now()})
		retired += res.RowsAffected
		return res.Error
	})
	return retired, err
}

// Sandboxes returns up to limit live sandboxes after the id after ("" for
// the first), in id order: the pool job visits each. A deleted sandbox's
// instances, its pool's included, were released when it was deleted.
func (s poolTable) Sandboxes(ctx context.Context, after string, limit int) ([]auxilia.Sandbox, error) {
	var rows []sandboxRow
	q := s.db.conn(ctx).Where("deleted_at IS NULL")
	if after != "" {
		q = q.Where("id > ?", after)
	}
	err := q.Order("id").Limit(limit).Find(&rows).Error
	out := make([]auxilia.Sandbox, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}

// Failures returns the pool's run of failed creates (zero when none).
func (s poolTable) Failures(ctx context.Context, sandboxID string) (auxilia.PoolFailures, error) {
	var rows []poolRow
	err := s.db.conn(ctx).Where("sandbox_id = ?", sandboxID).Limit(1).Find(&rows).Error
	if err != nil || len(rows) == 0 {
		return auxilia.PoolFailures{SandboxID: sandboxID}, err
	}
	r := rows[0]
	return auxilia.PoolFailures{SandboxID: r.SandboxID, Version: r.Version, Count: r.Failures, LastError: r.LastError,
		RetryAt: r.RetryAt, StoppedAt: r.StoppedAt}, nil
}

// SetFailures records the pool's run of failed creates.
func (s poolTable) SetFailures(ctx context.Context, f auxilia.PoolFailures) error {
	row := poolRow{SandboxID: f.SandboxID, Version: f.Version, Failures: f.Count, LastError: f.LastError,
		RetryAt: f.RetryAt, StoppedAt: f.StoppedAt, UpdatedAt: Now()}
	return s.db.conn(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "sandbox_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"version", "failures", "last_error", "retry_at", "stopped_at", "updated_at"}),
	}).Create(&row).Error
}
