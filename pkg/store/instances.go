package store

import (
	"context"
	"time"
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
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

func (instanceRow) TableName() string { return "instances" }

// Instance statuses. A live (or still creating) instance may belong to a
// thread; a released one waits for the reaper to destroy it at the provider.
const (
	instanceCreating  = "creating"
	instanceLive      = "live"
	instanceReleased  = "released"
	instanceDestroyed = "destroyed"
)

// Instances stores the instances threads run in.
type Instances struct{ db *DB }

// Instances returns the instance repository.
func (db *DB) Instances() Instances { return Instances{db} }

// ReleaseForSandbox detaches every instance the sandbox made from its
// thread and leaves it for the reaper, so that no thread ever reconnects to it.
func (s Instances) ReleaseForSandbox(ctx context.Context, sandboxID string) (int64, error) {
	return s.release(ctx, "sandbox_id = ?", sandboxID)
}

// ReleaseForAgent does the same for the instances of the agent's threads.
func (s Instances) ReleaseForAgent(ctx context.Context, agentID string) (int64, error) {
	return s.release(ctx, "thread_id IN (SELECT id FROM threads WHERE agent_id = ?)", agentID)
}

func (s Instances) release(ctx context.Context, where string, arg string) (int64, error) {
	active := []string{instanceCreating, instanceLive}
	err := s.db.conn(ctx).Exec(
		"UPDATE threads SET instance_id = NULL WHERE instance_id IN (SELECT id FROM instances WHERE "+where+" AND status IN ?)",
		arg, active).Error
	if err != nil {
		return 0, err
	}
	res := s.db.conn(ctx).Model(&instanceRow{}).Where(where, arg).Where("status IN ?", active).
		UpdateColumns(map[string]any{"status": instanceReleased, "updated_at": Now()})
	return res.RowsAffected, res.Error
}
