package daytonatest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Resources are a sandbox's vCPUs, and memory and disk in GiB.
type Resources struct {
	CPU, Memory, Disk int
}

// snapshotResources are what a new sandbox is given by its snapshot.
func (s *Server) snapshotResources() Resources {
	if s.opts.SnapshotResources == (Resources{}) {
		return Resources{CPU: sandboxCPU, Memory: sandboxMemory, Disk: sandboxDisk}
	}
	return s.opts.SnapshotResources
}

// perSandboxLimit is the advice Daytona adds to a per-sandbox limit's
// refusal (PER_SANDBOX_LIMIT_MESSAGE in
// apps/api/src/common/constants/error-messages.ts).
const perSandboxLimit = "Need higher resource limits per-sandbox? Contact us at support@daytona.io and let us know about your use case."

// resizeRequest is Daytona's ResizeSandboxDto
// (apps/api/src/sandbox/dto/resize-sandbox.dto.ts): each field optional,
// a number of at least 1; memory and disk in GiB.
type resizeRequest struct {
	CPU    *float64 `json:"cpu"`
	Memory *float64 `json:"memory"`
	Disk   *float64 `json:"disk"`
}

// resizeSandbox changes a sandbox's resources, as resize in Daytona's
// apps/api/src/sandbox/services/sandbox.service.ts does, refusing with its
// words and in its order: only a started or stopped sandbox, not while it
// changes state (409), disk only when stopped, CPU and memory only up while
// started, disk only up, something must change, the organisation's
// per-sandbox CPU and memory limits (organization.entity.ts: 4 vCPUs,
// 8 GiB) and, while started, its quota. The sandbox goes through "resizing" back to the state it was in.
// The route is behind the sandbox_resize feature flag
// (sandbox.controller.ts, resizeSandbox): see Options.NoResize.
func (s *Server) resizeSandbox(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	var req resizeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		apiError(w, r, http.StatusBadRequest, err.Error())
		return
	}
	// class-validator's @Min(1) words, for the ValidationPipe's 400
	for _, f := range []struct {
		name  string
		value *float64
	}{{"cpu", req.CPU}, {"memory", req.Memory}, {"disk", req.Disk}} {
		if f.value != nil && *f.value < 1 {
			apiError(w, r, http.StatusBadRequest, f.name+" must not be less than 1")
			return
		}
	}
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	now := sb.resources
	next := Resources{CPU: intOf(req.CPU, now.CPU), Memory: intOf(req.Memory, now.Memory), Disk: intOf(req.Disk, now.Disk)}
	hot := sb.State == "started"
	maxCPU, maxMemory := orDefault(s.opts.MaxCPUPerSandbox, 4), orDefault(s.opts.MaxMemoryPerSandbox, 8)
	var refusal string
	switch {
	case sb.State != "started" && sb.State != "stopped":
		refusal = "Sandbox must be in started or stopped state to resize"
	case sb.Moving():
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
		return
	case req.CPU == nil && req.Memory == nil && req.Disk == nil:
		refusal = "No resource changes specified - sandbox is already at the desired configuration"
	case req.Disk != nil && hot:
		refusal = "Disk resize can only be performed on a stopped sandbox"
	case hot && next.CPU < now.CPU:
		refusal = "Sandbox must be in stopped state to decrease the number of CPU cores"
	case hot && next.Memory < now.Memory:
		refusal = "Sandbox must be in stopped state to decrease memory"
	case next.Disk < now.Disk:
		refusal = "Sandbox disk size cannot be decreased"
	case next == now:
		refusal = "No resource changes specified - sandbox is already at the desired configuration"
	case next.CPU > maxCPU:
		refusal = fmt.Sprintf("CPU request %d exceeds maximum allowed per sandbox (%d).\n%s", next.CPU, maxCPU, perSandboxLimit)
	case next.Memory > maxMemory:
		refusal = fmt.Sprintf("Memory request %dGB exceeds maximum allowed per sandbox (%dGB).\n%s", next.Memory, maxMemory, perSandboxLimit)
	case hot:
		refusal = s.quotaRefusalWith(sb, next)
	}
	if refusal != "" {
		apiError(w, r, http.StatusBadRequest, refusal)
		return
	}
	sb.resources = next
	s.move(sb, sb.desired, "resizing", sb.State)
	writeJSON(w, http.StatusOK, s.dto(sb))
}

func intOf(v *float64, otherwise int) int {
	if v == nil {
		return otherwise
	}
	return int(*v)
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
