package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

type instanceRow struct {
	ID              string `gorm:"primaryKey"`
	WorkspaceID     string
	SandboxID       string
	ThreadID        *string
	ProviderRef     string
	WorkDir         string
	StateKeyID      string
	StateCiphertext string
	Status          string
	CreatedByRun    *string
	LeaseUntil      *time.Time
	PausedAt        *time.Time
	PoolVersion     *int // the sandbox version a pool made it from; nil when made for a thread
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

func (instanceRow) TableName() string { return "instances" }

// instanceColumns are instanceRow's columns, in the order of its scanTargets.
const instanceColumns = "id, workspace_id, sandbox_id, thread_id, provider_ref, work_dir, state_key_id, state_ciphertext, " +
	"status, created_by_run, lease_until, paused_at, pool_version, created_at, updated_at"

func (r *instanceRow) scanTargets() []any {
	return []any{&r.ID, &r.WorkspaceID, &r.SandboxID, &r.ThreadID, &r.ProviderRef, &r.WorkDir, &r.StateKeyID,
		&r.StateCiphertext, &r.Status, &r.CreatedByRun, &r.LeaseUntil, &r.PausedAt, &r.PoolVersion, &r.CreatedAt, &r.UpdatedAt}
}

func (r instanceRow) domain() auxilia.Instance {
	inst := auxilia.Instance{ID: r.ID, WorkspaceID: r.WorkspaceID, SandboxID: r.SandboxID, ProviderRef: r.ProviderRef,
		WorkDir: r.WorkDir, State: auxilia.SealedSecret{KeyID: r.StateKeyID, Ciphertext: r.StateCiphertext},
		Status: auxilia.InstanceStatus(r.Status), LeaseUntil: r.LeaseUntil, PausedAt: r.PausedAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	if r.ThreadID != nil {
		inst.ThreadID = *r.ThreadID
	}
	if r.PoolVersion != nil {
		inst.PoolVersion = *r.PoolVersion
	}
	if r.CreatedByRun != nil {
		inst.CreatedBy = *r.CreatedByRun
	}
	return inst
}

var activeInstance = []string{string(auxilia.InstanceCreating), string(auxilia.InstanceLive)}

// instanceTable stores the instances threads run in.
type instanceTable struct{ db *DB }

func (db *DB) instances() instanceTable { return instanceTable{db} }

// Claim records that run is creating an instance of the sandbox for the
// thread, until lease, and points the thread at it.
// It refuses with quota_exceeded when the workspace's quotas leave no room.
func (s instanceTable) Claim(ctx context.Context, t auxilia.Thread, sandboxID, runID string, lease time.Time) (auxilia.Instance, error) {
	var out auxilia.Instance
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.quotas().admit(ctx, t.WorkspaceID, t.AgentID, true); err != nil {
			return err
		}
		var err error
		out, err = s.claim(ctx, t, sandboxID, runID, lease)
		return err
	})
	return out, err
}

func (s instanceTable) claim(ctx context.Context, t auxilia.Thread, sandboxID, runID string, lease time.Time) (auxilia.Instance, error) {
	now := Now()
	row := instanceRow{ID: auxilia.NewID(), WorkspaceID: t.WorkspaceID, SandboxID: sandboxID, ThreadID: &t.ID,
		Status: string(auxilia.InstanceCreating), CreatedByRun: &runID, LeaseUntil: &lease, CreatedAt: now, UpdatedAt: now}
	if err := s.db.conn(ctx).Create(&row).Error; err != nil {
		return auxilia.Instance{}, err
	}
	if err := s.db.conn(ctx).Model(&threadRow{}).Where("id = ?", t.ID).Update("instance_id", row.ID).Error; err != nil {
		return auxilia.Instance{}, err
	}
	return row.domain(), nil
}

// Get returns an instance.
func (s instanceTable) Get(ctx context.Context, id string) (auxilia.Instance, error) {
	var row instanceRow
	err := s.db.conn(ctx).Where("id = ?", id).Take(&row).Error
	return row.domain(), notFound(err, "instance")
}

// MarkLive records a created instance, if it is still being created (its
// thread, agent or sandbox may have gone meanwhile). It reports whether it was.
func (s instanceTable) MarkLive(ctx context.Context, id, providerRef, workDir string, state auxilia.SealedSecret) (bool, error) {
	res := s.db.conn(ctx).Model(&instanceRow{}).Where("id = ? AND status = ?", id, auxilia.InstanceCreating).
		UpdateColumns(map[string]any{"status": auxilia.InstanceLive, "provider_ref": providerRef, "work_dir": workDir,
			"state_key_id": state.KeyID, "state_ciphertext": state.Ciphertext, "lease_until": nil, "updated_at": Now()})
	return res.RowsAffected == 1, res.Error
}

// SetState stores an instance's new provider state.
func (s instanceTable) SetState(ctx context.Context, id string, state auxilia.SealedSecret) error {
	return s.db.conn(ctx).Model(&instanceRow{}).Where("id = ?", id).UpdateColumns(map[string]any{
		"state_key_id": state.KeyID, "state_ciphertext": state.Ciphertext, "updated_at": Now()}).Error
}

// MarkPaused records that a live instance is being paused, unless it is
// paused already, no longer live, or its thread was active since
// quietSince; it reports whether it was marked.
func (s instanceTable) MarkPaused(ctx context.Context, id string, quietSince, at time.Time) (bool, error) {
	res := s.db.conn(ctx).Model(&instanceRow{}).Where("id = ? AND status = ? AND paused_at IS NULL", id, auxilia.InstanceLive).
		Where("NOT EXISTS (SELECT 1 FROM threads t WHERE t.instance_id = instances.id AND t.last_activity_at >= ?)", quietSince).
		UpdateColumns(map[string]any{"paused_at": at, "updated_at": Now()})
	return res.RowsAffected == 1, res.Error
}

// MarkResumed records that a paused instance runs again.
func (s instanceTable) MarkResumed(ctx context.Context, id string) error {
	return s.db.conn(ctx).Model(&instanceRow{}).Where("id = ? AND paused_at IS NOT NULL", id).
		UpdateColumns(map[string]any{"paused_at": nil, "updated_at": Now()}).Error
}

// SetProviderRef records the provider's id of an instance being created, as
// soon as it is known, so that the reaper can destroy it if its creator dies.
func (s instanceTable) SetProviderRef(ctx context.Context, id, providerRef string) error {
	return s.db.conn(ctx).Model(&instanceRow{}).Where("id = ?", id).
		UpdateColumns(map[string]any{"provider_ref": providerRef, "updated_at": Now()}).Error
}

// Release detaches an instance from its thread and leaves it for the reaper.
func (s instanceTable) Release(ctx context.Context, id string) error {
	if _, err := s.release(ctx, "id = ?", id); err != nil {
		return err
	}
	return nil
}

// MarkDestroyed records that the provider no longer has the instance.
func (s instanceTable) MarkDestroyed(ctx context.Context, id string) error {
	if err := s.db.conn(ctx).Model(&threadRow{}).Where("instance_id = ?", id).Update("instance_id", nil).Error; err != nil {
		return err
	}
	return s.db.conn(ctx).Model(&instanceRow{}).Where("id = ?", id).
		UpdateColumns(map[string]any{"status": auxilia.InstanceDestroyed, "updated_at": Now()}).Error
}

// ReleaseForSandbox detaches every instance the sandbox made from its
// thread and leaves it for the reaper, so that no thread ever reconnects to
// it, nor restores the files its threads kept.
func (s instanceTable) ReleaseForSandbox(ctx context.Context, sandboxID string) (int64, error) {
	if err := s.db.kept().release(ctx, "sandbox_id = ?", sandboxID); err != nil {
		return 0, err
	}
	return s.release(ctx, "sandbox_id = ?", sandboxID)
}

// ReleaseForAgent does the same for the instances of the agent's threads.
func (s instanceTable) ReleaseForAgent(ctx context.Context, agentID string) (int64, error) {
	return s.release(ctx, "thread_id IN (SELECT id FROM threads WHERE agent_id = ?)", agentID)
}

// release detaches the active instances matching where from their threads
// and marks them released.
func (s instanceTable) release(ctx context.Context, where string, args ...any) (int64, error) {
	err := s.db.conn(ctx).Exec(
		"UPDATE threads SET instance_id = NULL WHERE instance_id IN (SELECT id FROM instances WHERE "+where+" AND status IN ?)",
		append(args, activeInstance)...).Error
	if err != nil {
		return 0, err
	}
	res := s.db.conn(ctx).Model(&instanceRow{}).Where(where, args...).Where("status IN ?", activeInstance).
		UpdateColumns(map[string]any{"status": auxilia.InstanceReleased, "lease_until": nil, "updated_at": Now()})
	return res.RowsAffected, res.Error
}

// ExpireLeases releases the instances whose creation outlived its lease:
// their creator died, so the reaper is to destroy whatever it made.
func (s instanceTable) ExpireLeases(ctx context.Context, now time.Time) (int64, error) {
	return s.release(ctx, "status = ? AND lease_until < ?", auxilia.InstanceCreating, now)
}

// Reapable returns up to limit released instances, oldest first.
func (s instanceTable) Reapable(ctx context.Context, limit int) ([]auxilia.Instance, error) {
	var rows []instanceRow
	err := s.db.conn(ctx).Where("status = ?", auxilia.InstanceReleased).Order("updated_at").Limit(limit).Find(&rows).Error
	out := make([]auxilia.Instance, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}

// PurgeDestroyed forgets destroyed instances last changed before `before`.
func (s instanceTable) PurgeDestroyed(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.conn(ctx).Where("status = ? AND updated_at < ?", auxilia.InstanceDestroyed, before).Delete(&instanceRow{})
	return res.RowsAffected, res.Error
}

// ResealStates calls fn with every stored instance state and saves what it
// returns when that differs: key rotation.
func (s instanceTable) ResealStates(ctx context.Context, fn func(id string, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error)) (int, error) {
	var rows []instanceRow
	if err := s.db.conn(ctx).Select("id", "state_key_id", "state_ciphertext").
		Where("state_ciphertext <> '' AND status <> ?", auxilia.InstanceDestroyed).Order("id").Find(&rows).Error; err != nil {
		return 0, err
	}
	changed := 0
	for _, r := range rows {
		was := auxilia.SealedSecret{KeyID: r.StateKeyID, Ciphertext: r.StateCiphertext}
		out, err := fn(r.ID, was)
		if err != nil {
			return changed, err
		}
		if out == was {
			continue
		}
		if err := s.SetState(ctx, r.ID, out); err != nil {
			return changed, err
		}
		changed++
	}
	return changed, nil
}

// maxThreadInstances bounds how many of a sandbox's thread instances one
// read returns.
const maxThreadInstances = 1000

// ThreadInstances returns the live instances (paused ones included) that
// threads of the workspace work in on the sandbox, oldest first, at most
// maxThreadInstances of them.
func (s instanceTable) ThreadInstances(ctx context.Context, workspaceID, sandboxID string) ([]auxilia.Instance, error) {
	var rows []instanceRow
	err := s.db.conn(ctx).Where("workspace_id = ? AND sandbox_id = ? AND status = ? AND thread_id IS NOT NULL",
		workspaceID, sandboxID, auxilia.InstanceLive).Order("created_at, id").Limit(maxThreadInstances).Find(&rows).Error
	out := make([]auxilia.Instance, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}
