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

// Get returns an agent of the workspace with its binding, in one statement:
// every run start and tool call reads it.
func (s agentTable) Get(ctx context.Context, workspaceID, id string) (auxilia.Agent, error) {
	v, err := takeRow[agentBindingView](ctx, s.db, agentWithBindingSQL, workspaceID, id)
	if err != nil {
		return auxilia.Agent{}, notFound(err, "agent")
	}
	return v.domain(), nil
}

var agentWithBindingSQL = agentWithBindingSelect + "WHERE agents.workspace_id = ? AND agents.id = ? LIMIT 1"

// agentWithBindingSelect reads agents with their bindings (agentBindingView).
var agentWithBindingSelect = "SELECT " + qualified("agents", agentColumns) + ", bindings.sandbox_id, bindings.tools, " +
	"bindings.approval_granted_by, bindings.approval_with_call, bindings.created_at, bindings.updated_at, " +
	"sandboxes.name, sandboxes.provider, sandboxes.url FROM agents " +
	"LEFT JOIN bindings ON bindings.agent_id = agents.id " +
	"LEFT JOIN sandboxes ON sandboxes.id = bindings.sandbox_id AND sandboxes.deleted_at IS NULL "

// agentColumns are agentRow's columns, in the order of its scanTargets.
const agentColumns = "id, workspace_id, name, description, emoji, color, managed_by, version, created_at, updated_at"

func (r *agentRow) scanTargets() []any {
	return []any{&r.ID, &r.WorkspaceID, &r.Name, &r.Description, &r.Emoji, &r.Color, &r.ManagedBy, &r.Version,
		&r.CreatedAt, &r.UpdatedAt}
}

// agentBindingView is an agent with its binding's columns, null where it
// has none (or its sandbox is deleted, which leaves it none).
type agentBindingView struct {
	agent                    agentRow
	BindingSandboxID         *string
	BindingTools             *string
	BindingApprovalGrantedBy *string
	BindingApprovalWithCall  *bool
	BindingCreatedAt         *time.Time
	BindingUpdatedAt         *time.Time
	BindingSandboxName       *string
	BindingProvider          *string
	BindingURL               *string
}

func (v *agentBindingView) scanTargets() []any {
	return append(v.agent.scanTargets(), &v.BindingSandboxID, &v.BindingTools, &v.BindingApprovalGrantedBy,
		&v.BindingApprovalWithCall, &v.BindingCreatedAt, &v.BindingUpdatedAt, &v.BindingSandboxName, &v.BindingProvider,
		&v.BindingURL)
}

func (v agentBindingView) domain() auxilia.Agent {
	a := v.agent.domain()
	if v.BindingSandboxID == nil || v.BindingSandboxName == nil {
		return a
	}
	b := bindingView{AgentID: v.agent.ID, SandboxID: *v.BindingSandboxID, Tools: deref(v.BindingTools),
		ApprovalGrantedBy: deref(v.BindingApprovalGrantedBy), SandboxName: *v.BindingSandboxName,
		Provider: deref(v.BindingProvider), URL: deref(v.BindingURL), AgentVersion: v.agent.Version}.domain()
	if v.BindingApprovalWithCall != nil {
		b.Approval.WithCall = *v.BindingApprovalWithCall
	}
	if v.BindingCreatedAt != nil && v.BindingUpdatedAt != nil {
		b.CreatedAt, b.UpdatedAt = *v.BindingCreatedAt, *v.BindingUpdatedAt
	}
	a.Binding = &b
	return a
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
