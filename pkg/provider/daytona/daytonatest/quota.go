package daytonatest

import "fmt"

// Each fake sandbox is created with Daytona's default resources, as its
// dto shows them; a resize changes them.
const (
	sandboxCPU    = 1 // vCPUs
	sandboxMemory = 1 // GiB
	sandboxDisk   = 3 // GiB
)

// upgradeTier is the advice Daytona adds to a quota refusal
// (apps/api/src/common/constants/error-messages.ts).
const upgradeTier = "To increase concurrency limits, upgrade your organization's Tier by visiting https://app.daytona.io/dashboard/limits."

// Quota is the organisation's limits in a region. A zero field is no limit.
type Quota struct {
	CPU    int // vCPUs of the sandboxes meant to run
	Memory int // GiB of the sandboxes meant to run
	Disk   int // GiB of the sandboxes not archived
}

// SetQuota limits the organisation from now on: a create or start that
// would go past it is refused, as Daytona refuses it.
func (s *Server) SetQuota(q Quota) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota = q
}

// quotaRefusal is Daytona's refusal of running sb (being created or
// started) beside the organisation's other sandboxes, or "" when the quota
// allows it; it follows validateOrganizationQuotas in
// apps/api/src/sandbox/services/sandbox.service.ts, which answers 400.
// Caller holds s.mu.
func (s *Server) quotaRefusal(sb *sandbox) string {
	return s.quotaRefusalWith(sb, sb.resources)
}

// quotaRefusalWith is quotaRefusal for sb given resources r (a resize's).
// Caller holds s.mu.
func (s *Server) quotaRefusalWith(sb *sandbox, r Resources) string {
	cpu, memory, disk := r.CPU, r.Memory, r.Disk
	for _, other := range s.sandboxes {
		if other == sb || other.destroyed {
			continue
		}
		if other.desired == "started" {
			cpu += other.resources.CPU
			memory += other.resources.Memory
		}
		if other.State != "archived" && other.desired != "archived" {
			disk += other.resources.Disk
		}
	}
	q := s.quota
	switch {
	case q.CPU > 0 && cpu > q.CPU:
		return fmt.Sprintf("Total CPU limit exceeded. Maximum allowed: %d.\n%s", q.CPU, upgradeTier)
	case q.Memory > 0 && memory > q.Memory:
		return fmt.Sprintf("Total memory limit exceeded. Maximum allowed: %dGiB.\n%s", q.Memory, upgradeTier)
	case q.Disk > 0 && disk > q.Disk:
		return fmt.Sprintf("Total disk limit exceeded. Maximum allowed: %dGiB.\nConsider archiving your unused Sandboxes to free up available storage.\n%s", q.Disk, upgradeTier)
	}
	return ""
}
