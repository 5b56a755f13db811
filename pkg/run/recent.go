package run

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// RecentRuns lists a workspace's runs across its agents, newest first.
type RecentRuns interface {
	Recent(ctx context.Context, f auxilia.RunFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error)
}

// ListRecentRuns returns a page of the workspace's runs matching f, newest
// first; a run idle past the idle timeout counts, and shows, as expired.
func (s *Service) ListRecentRuns(ctx context.Context, workspaceID string, f auxilia.RunFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error) {
	recent, ok := s.Runs(workspaceID).(RecentRuns)
	if !ok {
		return auxilia.Page[auxilia.Run]{Items: []auxilia.Run{}}, nil
	}
	// The wall clock, as idle() reads it: what the filter leaves in, the list shows alike.
	f.IdleBefore = time.Now().Add(-s.opt.IdleTimeout)
	page, err := recent.Recent(ctx, f, req)
	for i := range page.Items {
		if s.idle(page.Items[i]) {
			page.Items[i].Status = auxilia.RunExpired
		}
	}
	return page, err
}
