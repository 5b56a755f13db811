package store

import (
	"context"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Recent returns a page of the workspace's runs that match f, newest first
// (run ids grow with time).
func (s runTable) Recent(ctx context.Context, workspaceID string, f auxilia.RunFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error) {
	q := s.joined(ctx).Where("runs.workspace_id = ?", workspaceID)
	if f.AgentID != "" {
		q = q.Where("runs.agent_id = ?", f.AgentID)
	}
	if f.SandboxID != "" {
		q = q.Where("runs.sandbox_id = ?", f.SandboxID)
	}
	switch f.Status {
	case auxilia.RunActive:
		q = q.Where("runs.status = ? AND runs.last_activity_at >= ?", auxilia.RunActive, f.IdleBefore)
	case auxilia.RunExpired:
		q = q.Where("runs.status = ? OR (runs.status = ? AND runs.last_activity_at < ?)", auxilia.RunExpired, auxilia.RunActive, f.IdleBefore)
	case auxilia.RunCompleted:
		q = q.Where("runs.status = ?", auxilia.RunCompleted)
	}
	if req.After != "" {
		q = q.Where("runs.id < ?", req.After)
	}
	var views []runView
	if err := q.Order("runs.id DESC").Limit(req.Size + 1).Find(&views).Error; err != nil {
		return auxilia.Page[auxilia.Run]{}, err
	}
	return toPage(views, req, func(v runView) string { return v.ID }, runView.domain), nil
}

// Recent returns a page of the workspace's runs that match f, newest first.
func (s TenantRuns) Recent(ctx context.Context, f auxilia.RunFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error) {
	return s.t.db.runs().Recent(ctx, s.t.ws, f, req)
}
