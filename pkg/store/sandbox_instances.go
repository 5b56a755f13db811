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

// ListForSandbox returns a page of the sandbox's active (creating or live)
// instances with the threads and agents they work for, by id.
func (s instanceTable) ListForSandbox(ctx context.Context, workspaceID, sandboxID string, req auxilia.PageRequest) (auxilia.Page[auxilia.InstanceUse], error) {
	var rows []instanceRow
	q := s.db.conn(ctx).Where("workspace_id = ? AND sandbox_id = ? AND status IN ?", workspaceID, sandboxID, activeInstance)
	if err := pageQuery(q, req).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.InstanceUse]{}, err
	}
	page := toPage(rows, req, func(r instanceRow) string { return r.ID }, func(r instanceRow) auxilia.InstanceUse {
		return auxilia.InstanceUse{Instance: r.domain()}
	})
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
