package run

import (
	"context"
	"fmt"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// instanceRoom is how many more instances the workspace's quotas let it
// make, and the quota that bounds it; ok is false when no quota does. A
// month's instance-hours used up leave no room at all. The store checks
// again, under its lock, as it records each one: this only spares the pool
// creates that would be refused.
func (s *Service) instanceRoom(ctx context.Context, workspaceID string) (room int, use auxilia.QuotaUse, ok bool, err error) {
	if s.Quotas == nil {
		return 0, use, false, nil
	}
	all, err := s.Quotas(workspaceID).Use(ctx)
	if err != nil {
		return 0, use, false, err
	}
	for _, u := range all {
		if u.Name == auxilia.QuotaInstanceHours && u.Limit > 0 && u.Used != nil && *u.Used >= u.Limit {
			return 0, u, true, nil
		}
	}
	for _, u := range all {
		if u.Name == auxilia.QuotaInstances && u.Limit > 0 && u.Used != nil {
			return max(u.Limit-*u.Used, 0), u, true, nil
		}
	}
	return 0, use, false, nil
}

// quotaDetail says why a pool waits: a quota of its workspace is used up.
func quotaDetail(u auxilia.QuotaUse) string {
	if u.Name == auxilia.QuotaInstanceHours {
		return fmt.Sprintf("The workspace's instance-hours quota is used up (%d of %d this month): "+
			"the pool fills again next month, or once the operator raises the quota.", *u.Used, u.Limit)
	}
	return fmt.Sprintf("The workspace's instances quota is used up (%d of %d live instances, pooled ones included): "+
		"the pool fills again as instances are released.", *u.Used, u.Limit)
}
