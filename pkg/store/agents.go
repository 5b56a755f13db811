package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

type agentRow struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	Name        string
	Description string
	Emoji       string
	Color       string
	ManagedBy   string
	Version     int
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (agentRow) TableName() string { return "agents" }

func (r agentRow) domain() auxilia.Agent {
	return auxilia.Agent{ID: r.ID, WorkspaceID: r.WorkspaceID,
		AgentSpec: auxilia.AgentSpec{Name: r.Name, Description: r.Description, Emoji: r.Emoji, Color: r.Color, ManagedBy: r.ManagedBy},
		Version:   r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// agentTable stores agents and their bindings.
type agentTable struct{ db *DB }

func (db *DB) agents() agentTable { return agentTable{db} }

// Create stores a new agent.
func (s agentTable) Create(ctx context.Context, a auxilia.Agent) (auxilia.Agent, error) {
	now := Now()
	row := agentRow{ID: auxilia.NewID(), WorkspaceID: a.WorkspaceID, Name: a.Name, Description: a.Description,
		Emoji: a.Emoji, Color: a.Color, ManagedBy: a.ManagedBy, Version: 1, CreatedAt: now, UpdatedAt: now}
	if err := s.db.conn(ctx).Create(&row).Error; err != nil {
		return auxilia.Agent{}, err
	}
	return row.domain(), nil
}

// Get returns an agent of the workspace with its binding.
func (s agentTable) Get(ctx context.Context, workspaceID, id string) (auxilia.Agent, error) {
	var row agentRow
	if err := s.db.conn(ctx).Where("workspace_id = ? AND id = ?", workspaceID, id).Take(&row).Error; err != nil {
		return auxilia.Agent{}, notFound(err, "agent")
	}
	agents, err := s.withBindings(ctx, []agentRow{row})
	if err != nil {
		return auxilia.Agent{}, err
	}
	return agents[0], nil
}

// List returns a page of the workspace's agents with their bindings.
func (s agentTable) List(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Agent], error) {
	var rows []agentRow
	if err := pageQuery(s.db.conn(ctx).Where("workspace_id = ?", workspaceID), req).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.Agent]{}, err
	}
	page := toPage(rows, req, func(r agentRow) string { return r.ID }, func(r agentRow) agentRow { return r })
	agents, err := s.withBindings(ctx, page.Items)
	return auxilia.Page[auxilia.Agent]{Items: agents, Next: page.Next}, err
}

// withBindings converts rows and attaches their bindings (one query for all).
func (s agentTable) withBindings(ctx context.Context, rows []agentRow) ([]auxilia.Agent, error) {
	out := make([]auxilia.Agent, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
		ids[i] = r.ID
	}
	if len(ids) == 0 {
		return out, nil
	}
	bindings, err := s.db.bindings().ofAgents(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if b, ok := bindings[out[i].ID]; ok {
			out[i].Binding = &b
		}
	}
	return out, nil
}

// Update saves an agent's spec if its stored version is still a.Version.
func (s agentTable) Update(ctx context.Context, a auxilia.Agent) (auxilia.Agent, error) {
	res := s.db.conn(ctx).Model(&agentRow{}).
		Where("workspace_id = ? AND id = ? AND version = ?", a.WorkspaceID, a.ID, a.Version).
		Updates(map[string]any{"name": a.Name, "description": a.Description, "emoji": a.Emoji, "color": a.Color,
			"version": gorm.Expr("version + 1"), "updated_at": Now()})
	if res.Error != nil {
		return auxilia.Agent{}, res.Error
	}
	if res.RowsAffected == 0 {
		current, err := s.Get(ctx, a.WorkspaceID, a.ID)
		if err != nil {
			return auxilia.Agent{}, err
		}
		return auxilia.Agent{}, auxilia.Stale("agent", current.Version)
	}
	return s.Get(ctx, a.WorkspaceID, a.ID)
}

// Delete removes an agent, its binding and its threads, if it is still at
// the version the caller read.
func (s agentTable) Delete(ctx context.Context, workspaceID, id string, version int) error {
	res := s.db.conn(ctx).Where("workspace_id = ? AND id = ? AND version = ?", workspaceID, id, version).Delete(&agentRow{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		current, err := s.Get(ctx, workspaceID, id)
		if err != nil {
			return err
		}
		return auxilia.Stale("agent", current.Version)
	}
	return nil
}
