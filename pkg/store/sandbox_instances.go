package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// instanceThread is the thread an instance works for, with its agent's name.
type instanceThread struct {
	ID             string
	ThreadKey      string
	AgentID        string
	AgentName      string
	LastActivityAt *time.Time
}

// ListInstances returns a page of the workspace's active (creating or live)
// instances that f picks, with their sandboxes and the threads and agents
// they work for, by id.
func (s instanceTable) ListInstances(ctx context.Context, workspaceID string, f auxilia.InstanceFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.InstanceUse], error) {
	var rows []instanceRow
	q := s.db.conn(ctx).Where("workspace_id = ? AND status IN ?", workspaceID, activeInstance)
	if f.SandboxID != "" {
		q = q.Where("sandbox_id = ?", f.SandboxID)
	}
	if f.AgentID != "" {
		q = q.Where("thread_id IN (SELECT id FROM threads WHERE agent_id = ?)", f.AgentID)
	}
	switch f.State {
	case "creating":
		q = q.Where("status = ?", auxilia.InstanceCreating)
	case "live":
		q = q.Where("status = ? AND paused_at IS NULL", auxilia.InstanceLive)
	case "paused":
		q = q.Where("status = ? AND paused_at IS NOT NULL", auxilia.InstanceLive)
	}
	if err := pageQuery(q, req).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.InstanceUse]{}, err
	}
	page := toPage(rows, req, func(r instanceRow) string { return r.ID }, func(r instanceRow) auxilia.InstanceUse {
		return auxilia.InstanceUse{Instance: r.domain()}
	})
	if err := s.nameSandboxes(ctx, page.Items); err != nil {
		return auxilia.Page[auxilia.InstanceUse]{}, err
	}
	// The page's threads in one query, not one per instance.
	var threadIDs []string
	for _, u := range page.Items {
		if u.ThreadID != "" {
			threadIDs = append(threadIDs, u.ThreadID)
		}
	}
	if len(threadIDs) == 0 {
		return page, nil
	}
	var threads []instanceThread
	err := s.db.conn(ctx).Table("threads t").
		Select("t.id AS id, t.thread_key AS thread_key, t.agent_id AS agent_id, a.name AS agent_name, t.last_activity_at AS last_activity_at").
		Joins("JOIN agents a ON a.id = t.agent_id").Where("t.id IN ?", threadIDs).Scan(&threads).Error
	if err != nil {
		return auxilia.Page[auxilia.InstanceUse]{}, err
	}
	byID := make(map[string]instanceThread, len(threads))
	for _, th := range threads {
		byID[th.ID] = th
	}
	for i, u := range page.Items {
		if th, ok := byID[u.ThreadID]; ok {
			page.Items[i].ThreadKey, page.Items[i].AgentID, page.Items[i].AgentName = th.ThreadKey, th.AgentID, th.AgentName
			page.Items[i].LastActivityAt = th.LastActivityAt
		}
	}
	return page, nil
}

// nameSandboxes fills in the sandboxes' names, in one query.
func (s instanceTable) nameSandboxes(ctx context.Context, uses []auxilia.InstanceUse) error {
	ids := make([]string, 0, len(uses))
	for _, u := range uses {
		ids = append(ids, u.SandboxID)
	}
	if len(ids) == 0 {
		return nil
	}
	var named []struct{ ID, Name string }
	if err := s.db.conn(ctx).Table("sandboxes").Select("id, name").Where("id IN ?", ids).Scan(&named).Error; err != nil {
		return err
	}
	names := make(map[string]string, len(named))
	for _, n := range named {
		names[n.ID] = n.Name
	}
	for i := range uses {
		uses[i].SandboxName = names[uses[i].SandboxID]
	}
	return nil
}

// ActiveCounts returns how many active (creating or live) instances each of
// the sandboxes has; a sandbox with none is left out.
func (s instanceTable) ActiveCounts(ctx context.Context, workspaceID string, sandboxIDs []string) (map[string]int, error) {
	out := make(map[string]int, len(sandboxIDs))
	if len(sandboxIDs) == 0 {
		return out, nil
	}
	var counts []struct {
		SandboxID string
		N         int
	}
	err := s.db.conn(ctx).Table("instances").Select("sandbox_id, COUNT(*) AS n").
		Where("workspace_id = ? AND status IN ? AND sandbox_id IN ?", workspaceID, activeInstance, sandboxIDs).
		Group("sandbox_id").Scan(&counts).Error
	for _, c := range counts {
		out[c.SandboxID] = c.N
	}
	return out, err
}
