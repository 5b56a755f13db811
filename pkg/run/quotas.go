package run

import (
	"context"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// instanceRoom is how many more instances the workspace's quota lets it
// make, and the quota's use; ok is false when it has no such quota. The
// store checks again, under its lock, as it records each one: this only
// spares the pool creates that would be refused.
func (s *Service) instanceRoom(ctx context.Context, workspaceID string) (room int, use auxilia.QuotaUse, ok bool, err error) {
	if s.Quotas == nil {
		return 0, use, false, nil
	}
	all, err := s.Quotas(workspaceID).Use(ctx)
	if err != nil {
		return 0, use, false, err
	}
	for _, u := range all {
		if u.Name == auxilia.QuotaInstances && u.Limit > 0 && u.Used != nil {
			return max(u.Limit-*u.Used, 0), u, true, nil
		}
	}
	return 0, use, false, nil
}

// quotaDetail says why a pool waits: its workspace's instances quota is used up.
func quotaDetail(u auxilia.QuotaUse) string {
	return fmt.Sprintf("The workspace's instances quota is used up (%d of %d live instances, pooled ones included): "+
		"the pool fills again as instances are released.", *u.Used, u.Limit)
}
