package daytonatest

import (
	"net/http"
	"slices"
)

// networkRestricted is Daytona's refusal of a sandbox's own network settings
// in an organisation whose egress its tier limits (updateNetworkSettings in
// apps/api/src/sandbox/controllers/sandbox.controller.ts; its cloud refuses
// them at create too).
const networkRestricted = "Network access is restricted and cannot be overridden at the sandbox level. See https://www.daytona.io/docs/en/network-limits/#tier-based-network-restrictions"

// sandboxClass is the class the fake's sandboxes are made in.
func (s *Server) sandboxClass() string {
	if s.opts.SandboxClass == "" {
		return "container"
	}
	return s.opts.SandboxClass
}

// pauseSandbox pauses a started sandbox with its memory, as pause in
// Daytona's apps/api/src/sandbox/services/sandbox.service.ts does: it goes
// through "pausing" to "paused", its processes kept (a paused sandbox is
// not among withoutProcesses), and a start resumes it. Only VM classes
// pause; a container is refused with a 422.
func (s *Server) pauseSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	switch {
	case sb.State != "started":
		apiError(w, r, http.StatusBadRequest, "Sandbox must be in started state to pause")
	case sb.Moving():
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
	case !slices.Contains([]string{"linux-vm", "windows"}, s.sandboxClass()):
		apiError(w, r, http.StatusUnprocessableEntity, "Pausing is not supported for this sandbox")
	default:
		s.move(sb, "paused", "pausing", "paused")
		writeJSON(w, http.StatusOK, s.dto(sb))
	}
}
