package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type bindingRow struct {
	AgentID           string `gorm:"primaryKey"`
	SandboxID         string
	Tools             string
	ApprovalGrantedBy string
	ApprovalWithCall  bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

func (bindingRow) TableName() string { return "bindings" }

// bindingView is a binding joined with its sandbox.
type bindingView struct {
	AgentID           string
	SandboxID         string
	Tools             string
	ApprovalGrantedBy string
	ApprovalWithCall  bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
	SandboxName       string
	Provider          string
	URL               string
	AgentVersion      int
}

func (r bindingView) domain() auxilia.Binding {
	b := auxilia.Binding{AgentID: r.AgentID, SandboxID: r.SandboxID, SandboxName: r.SandboxName,
		Provider: r.Provider, URL: r.URL, Version: r.AgentVersion, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		Approval: auxilia.ApprovalRule{GrantedBy: auxilia.Grantor(r.ApprovalGrantedBy), WithCall: r.ApprovalWithCall}}
	_ = json.Unmarshal([]byte(r.Tools), &b.Tools)
	return b
}

// bindingTable keeps which sandbox each agent runs with.
type bindingTable struct{ db *DB }

func (db *DB) bindings() bindingTable { return bindingTable{db} }

func (s bindingTable) joined(ctx context.Context) *gorm.DB {
	return s.db.conn(ctx).Table("bindings").
		Select("bindings.*, sandboxes.name AS sandbox_name, sandboxes.provider, sandboxes.url, agents.version AS agent_version").
		Joins("JOIN sandboxes ON sandboxes.id = bindings.sandbox_id AND sandboxes.deleted_at IS NULL").
		Joins("JOIN agents ON agents.id = bindings.agent_id")
}

// newAgentVersions makes a binding change a new version of the agents it
// changes: an agent's resource shows its binding, so its ETag must move.
func (s bindingTable) newAgentVersions(ctx context.Context, where string, args ...any) error {
	return s.db.conn(ctx).Model(&agentRow{}).Where(where, args...).
		UpdateColumns(map[string]any{"version": gorm.Expr("version + 1"), "updated_at": Now()}).Error
}

// Put binds the agent to the sandbox, with its tools' policies and its
// approval rule, replacing any earlier binding: the agent's primary key
// makes a second binding impossible, however many requests race.
func (s bindingTable) Put(ctx context.Context, agentID, sandboxID string, tools map[string]auxilia.ToolPolicy, approval auxilia.ApprovalRule) error {
	raw, err := json.Marshal(tools)
	if err != nil {
		return err
	}
	now := Now()
	row := bindingRow{AgentID: agentID, SandboxID: sandboxID, Tools: string(raw),
		ApprovalGrantedBy: string(approval.GrantedBy), ApprovalWithCall: approval.WithCall, CreatedAt: now, UpdatedAt: now}
	err = s.db.conn(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "agent_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"sandbox_id", "tools", "approval_granted_by", "approval_with_call", "updated_at"}),
	}).Create(&row).Error
	if err != nil {
		return err
	}
	return s.newAgentVersions(ctx, "id = ?", agentID)
}

// Get returns an agent's binding.
func (s bindingTable) Get(ctx context.Context, agentID string) (auxilia.Binding, error) {
	var v bindingView
	if err := s.joined(ctx).Where("bindings.agent_id = ?", agentID).Take(&v).Error; err != nil {
		return auxilia.Binding{}, notFound(err, "binding")
	}
	return v.domain(), nil
}

func (s bindingTable) ofAgents(ctx context.Context, agentIDs []string) (map[string]auxilia.Binding, error) {
	var views []bindingView
	if err := s.joined(ctx).Where("bindings.agent_id IN ?", agentIDs).Find(&views).Error; err != nil {
		return nil, err
	}
	out := make(map[string]auxilia.Binding, len(views))
	for _, v := range views {
		out[v.AgentID] = v.domain()
	}
	return out, nil
}

// Delete unbinds an agent; an agent without a binding is not found.
func (s bindingTable) Delete(ctx context.Context, agentID string) error {
	res := s.db.conn(ctx).Where("agent_id = ?", agentID).Delete(&bindingRow{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return auxilia.NotFound("binding")
	}
	return s.newAgentVersions(ctx, "id = ?", agentID)
}

// AgentIDsOf returns the ids of every agent bound to the sandbox, in order.
func (s bindingTable) AgentIDsOf(ctx context.Context, sandboxID string) ([]string, error) {
	var ids []string
	err := s.db.conn(ctx).Model(&bindingRow{}).Where("sandbox_id = ?", sandboxID).Order("agent_id").Pluck("agent_id", &ids).Error
	return ids, err
}

// DeleteForSandbox unbinds every agent bound to the sandbox. Like Put and
// Delete it changes the bindings first, then their agents' versions.
func (s bindingTable) DeleteForSandbox(ctx context.Context, sandboxID string) (int64, error) {
	ids, err := s.AgentIDsOf(ctx, sandboxID)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	res := s.db.conn(ctx).Where("sandbox_id = ? AND agent_id IN ?", sandboxID, ids).Delete(&bindingRow{})
	if res.Error != nil {
		return 0, res.Error
	}
	return res.RowsAffected, s.newAgentVersions(ctx, "id IN ?", ids)
}

// AgentsOf returns a page of the agents bound to the sandbox.
func (s bindingTable) AgentsOf(ctx context.Context, sandboxID string, req auxilia.PageRequest) (auxilia.Page[auxilia.AgentRef], error) {
	var rows []agentRow
	q := s.db.conn(ctx).Table("agents").Select("agents.*").
		Joins("JOIN bindings ON bindings.agent_id = agents.id").Where("bindings.sandbox_id = ?", sandboxID)
	if req.After != "" {
		q = q.Where("agents.id > ?", req.After)
	}
	if err := q.Order("agents.id").Limit(req.Size + 1).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.AgentRef]{}, err
	}
	return toPage(rows, req, func(r agentRow) string { return r.ID }, func(r agentRow) auxilia.AgentRef {
		return auxilia.AgentRef{ID: r.ID, Name: r.Name, Emoji: r.Emoji, Color: r.Color}
	}), nil
}
