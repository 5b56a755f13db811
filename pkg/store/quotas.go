package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm/clause"
)

type quotaRow struct {
	WorkspaceID            string `gorm:"primaryKey"`
	Instances              *int
	InstanceHours          *int
	ThreadsPerAgent        *int
	CostBudget             *float64
	AlertedInstances       int
	AlertedInstanceHours   int
	AlertedThreadsPerAgent int
	AlertedCostBudget      int
	UpdatedAt              time.Time
}

func (quotaRow) TableName() string { return "workspace_quotas" }

// quotaColumns are quotaRow's columns, in the order of its scanTargets.
const quotaColumns = "workspace_id, instances, instance_hours, threads_per_agent, cost_budget, alerted_instances, " +
	"alerted_instance_hours, alerted_threads_per_agent, alerted_cost_budget, updated_at"

func (r *quotaRow) scanTargets() []any {
	return []any{&r.WorkspaceID, &r.Instances, &r.InstanceHours, &r.ThreadsPerAgent, &r.CostBudget, &r.AlertedInstances,
		&r.AlertedInstanceHours, &r.AlertedThreadsPerAgent, &r.AlertedCostBudget, &r.UpdatedAt}
}

func (r quotaRow) settings() auxilia.QuotaSettings {
	return auxilia.QuotaSettings{Instances: r.Instances, InstanceHours: r.InstanceHours, ThreadsPerAgent: r.ThreadsPerAgent,
		CostBudget: r.CostBudget}
}

// quotaTable keeps the limits the operator set on each workspace and
// enforces them where instances are made.
type quotaTable struct{ db *DB }

func (db *DB) quotas() quotaTable { return quotaTable{db} }

// settings returns the workspace's own settings and its alert levels.
func (s quotaTable) row(ctx context.Context, workspaceID string) (quotaRow, error) {
	rows, err := findRows[quotaRow](ctx, s.db, "SELECT "+quotaColumns+" FROM workspace_quotas WHERE workspace_id = ? LIMIT 1",
		workspaceID)
	if err != nil || len(rows) == 0 {
		return quotaRow{WorkspaceID: workspaceID}, err
	}
	return rows[0], nil
}

// Set changes the settings the update names (its nil fields are left as
// they are) and returns them all.
func (s quotaTable) Set(ctx context.Context, workspaceID string, update auxilia.QuotaSettings) (auxilia.QuotaSettings, error) {
	row := quotaRow{WorkspaceID: workspaceID, Instances: update.Instances, InstanceHours: update.InstanceHours,
		ThreadsPerAgent: update.ThreadsPerAgent, CostBudget: update.CostBudget, UpdatedAt: Now()}
	columns := []string{"updated_at"}
	if update.CostBudget != nil {
		columns = append(columns, "cost_budget")
	}
	for name, v := range map[string]*int{"instances": update.Instances, "instance_hours": update.InstanceHours,
		"threads_per_agent": update.ThreadsPerAgent} {
		if v != nil {
			columns = append(columns, name)
		}
	}
	var out auxilia.QuotaSettings
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.conn(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "workspace_id"}},
			DoUpdates: clause.AssignmentColumns(columns)}).Create(&row).Error; err != nil {
			return err
		}
		got, err := s.row(ctx, workspaceID)
		out = got.settings()
		return err
	})
	return out, err
}

// Use returns each quota of the workspace with its current use.
func (s quotaTable) Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error) {
	row, err := s.row(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	own := row.settings()
	limits := own.Over(s.db.quotaDefaults)
	instances, err := s.liveInstances(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	var busiest []int
	if err := s.db.conn(ctx).Raw(`SELECT COUNT(*) FROM threads t JOIN instances i ON i.id = t.instance_id
		WHERE i.workspace_id = ? AND i.status IN ? GROUP BY t.agent_id ORDER BY COUNT(*) DESC LIMIT 1`,
		workspaceID, activeInstance).Scan(&busiest).Error; err != nil {
		return nil, err
	}
	threads := 0
	if len(busiest) > 0 {
		threads = busiest[0]
	}
	hours, err := s.runningHours(ctx, workspaceID, Now())
	if err != nil {
		return nil, err
	}
	used := map[auxilia.QuotaName]*int{auxilia.QuotaInstances: &instances, auxilia.QuotaInstanceHours: &hours,
		auxilia.QuotaThreadsPerAgent: &threads}
	var out []auxilia.QuotaUse
	for _, name := range auxilia.QuotaNames() {
		out = append(out, auxilia.QuotaUse{Name: name, Limit: limits.Of(name), Default: own.Of(name) == nil, Used: used[name]})
	}
	return out, nil
}

// liveInstances counts the workspace's instances being made or live
// (paused ones and the pools' included).
func (s quotaTable) liveInstances(ctx context.Context, workspaceID string) (int, error) {
	var n int64
	err := s.db.conn(ctx).Model(&instanceRow{}).Where("workspace_id = ? AND status IN ?", workspaceID, activeInstance).Count(&n).Error
	return int(n), err
}

// admit lets the workspace make one more instance (newInstance) and, for
// agentID (unless ""), give one more of its threads a live instance, or
// refuses with quota_exceeded. It must run in the transaction that then
// records the instance: under the workspace's quota lock, held until that
// transaction ends, no other replica counts the same room. Crossing an
// alert level of the instances quota is audited there too, once.
func (s quotaTable) admit(ctx context.Context, workspaceID, agentID string, newInstance bool) error {
	row, err := s.row(ctx, workspaceID)
	if err != nil {
		return err
	}
	limits := row.settings().Over(s.db.quotaDefaults)
	if newInstance && limits.InstanceHours > 0 {
		if err := s.admitHours(ctx, row, limits.InstanceHours); err != nil {
			return err
		}
	}
	checkInstances := newInstance && limits.Instances > 0
	checkThreads := agentID != "" && limits.ThreadsPerAgent > 0
	if !checkInstances && !checkThreads {
		return nil
	}
	if err := s.db.Lock(ctx, "quota:"+workspaceID); err != nil {
		return err
	}
	// Read again under the lock: the alert level another admission just
	// recorded, so that a crossing is announced once.
	if row, err = s.row(ctx, workspaceID); err != nil {
		return err
	}
	limits = row.settings().Over(s.db.quotaDefaults)
	if checkThreads {
		var n int64
		if err := s.db.conn(ctx).Raw(`SELECT COUNT(*) FROM threads t JOIN instances i ON i.id = t.instance_id
			WHERE t.agent_id = ? AND i.status IN ?`, agentID, activeInstance).Scan(&n).Error; err != nil {
			return err
		}
		if int(n) >= limits.ThreadsPerAgent {
			return auxilia.QuotaExceeded(auxilia.QuotaThreadsPerAgent, limits.ThreadsPerAgent, int(n), auxilia.QuotaRetryConcurrent)
		}
		// Only raised here: this agent's threads are not the busiest
		// agent's, which the alerts job measures, lowering the level too.
		if err := s.raise(ctx, row, quotaReached(auxilia.QuotaThreadsPerAgent, int(n)+1, limits.ThreadsPerAgent)); err != nil {
			return err
		}
	}
	if !checkInstances {
		return nil
	}
	n, err := s.liveInstances(ctx, workspaceID)
	if err != nil {
		return err
	}
	if n >= limits.Instances {
		return auxilia.QuotaExceeded(auxilia.QuotaInstances, limits.Instances, n, auxilia.QuotaRetryConcurrent)
	}
	return s.record(ctx, row, quotaReached(auxilia.QuotaInstances, n+1, limits.Instances))
}

// boundsThreads tells whether a threads-per-agent quota is in force in
// the workspace: its own, or the default.
func (s quotaTable) boundsThreads(ctx context.Context, workspaceID string) (bool, error) {
	row, err := s.row(ctx, workspaceID)
	return row.settings().Over(s.db.quotaDefaults).ThreadsPerAgent > 0, err
}

// Limits returns the workspace's own settings and the limits in force.
func (s quotaTable) Limits(ctx context.Context, workspaceID string) (auxilia.QuotaSettings, auxilia.Quotas, error) {
	row, err := s.row(ctx, workspaceID)
	if err != nil {
		return auxilia.QuotaSettings{}, auxilia.Quotas{}, err
	}
	own := row.settings()
	return own, own.Over(s.db.quotaDefaults), nil
}
