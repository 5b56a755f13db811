package daytonatest

import (
	"fmt"
	"net/http"
	"slices"
)

// The permissions of an API key on sandboxes, as Daytona names them
// (apps/api/src/organization/enums/organization-resource-permission.enum.ts).
const (
	PermWriteSandboxes  = "write:sandboxes"
	PermDeleteSandboxes = "delete:sandboxes"
	PermDeleteSnapshots = "delete:snapshots"
)

// permissionNeeded is the permission each operation asks of an API key, as
// the controller's RequiredOrganizationResourcePermissions do
// (apps/api/src/sandbox/controllers/sandbox.controller.ts).
var permissionNeeded = map[string]string{
	OpCreateSandbox: PermWriteSandboxes,
	OpStartSandbox:  PermWriteSandboxes,
	OpStopSandbox:   PermWriteSandboxes,
	// sandbox.controller.ts: updateNetworkSettings needs WRITE_SANDBOXES.
	OpUpdateNetworkSettings: PermWriteSandboxes,
	OpArchiveSandbox:        PermWriteSandboxes,
	// apps/api/src/sandbox/controllers/snapshot.controller.ts
	OpCreateSandboxSnapshot: PermWriteSandboxes,
	OpRemoveSnapshot:        PermDeleteSnapshots,
	OpRecoverSandbox:        PermWriteSandboxes,
	OpDeleteSandbox:         PermDeleteSandboxes,
}

// forbidden is NestJS's answer when a guard refuses: the organisation's
// guard (apps/api/src/organization/guards/organization-auth-context.guard.ts)
// refuses a key without the operation's permission.
const forbidden = "Forbidden resource"

// SuspendOrganization suspends the organisation, with reason ("" for none):
// creating, starting or recovering a sandbox is refused from now on.
func (s *Server) SuspendOrganization(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.suspended, s.suspension = true, reason
}

// organizationRefusal writes Daytona's refusal of op for the organisation's
// account, and reports whether it did: a key without the permission op
// needs, or a suspended organisation on an operation that runs a sandbox
// (assertOrganizationIsNotSuspended in
// apps/api/src/organization/services/organization.service.ts). Caller holds s.mu.
func (s *Server) organizationRefusal(w http.ResponseWriter, r *http.Request, op string, k *apiKey) bool {
	need, guarded := permissionNeeded[op]
	switch {
	case guarded && k.permissions != nil && !slices.Contains(k.permissions, need):
		apiError(w, r, http.StatusForbidden, forbidden)
	case s.suspended && (op == OpCreateSandbox || op == OpStartSandbox || op == OpRecoverSandbox):
		msg := "Organization is suspended"
		if s.suspension != "" {
			msg += ": " + s.suspension
		}
		apiError(w, r, http.StatusForbidden, msg)
	default:
		return false
	}
	return true
}

// regionClosed is Daytona's refusal of a create in a shared region the
// organisation has no quota for (validateOrganizationQuotas in
// apps/api/src/sandbox/services/sandbox.service.ts), or "".
func (s *Server) regionClosed(target string) string {
	if slices.Contains(s.opts.ClosedTargets, target) {
		return fmt.Sprintf("Region %s is not available to the organization for class container", target)
	}
	return ""
}
