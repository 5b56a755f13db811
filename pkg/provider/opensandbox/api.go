package opensandbox

import "time"

// The lifecycle API's messages, as far as the client uses them.

type createRequest struct {
	// Image or SnapshotID: the server takes exactly one of them.
	Image          *imageSpec        `json:"image,omitempty"`
	SnapshotID     string            `json:"snapshotId,omitempty"`
	Entrypoint     []string          `json:"entrypoint"`
	ResourceLimits map[string]string `json:"resourceLimits"`
	Timeout        int               `json:"timeout"`
	Env            map[string]string `json:"env,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty"`
	Volumes        []volume          `json:"volumes,omitempty"`
	NetworkPolicy  *networkPolicy    `json:"networkPolicy,omitempty"`
}

// networkPolicy is specs/sandbox-lifecycle.yml's NetworkPolicy.
type networkPolicy struct {
	DefaultAction string        `json:"defaultAction"`
	Egress        []networkRule `json:"egress"`
}

// networkRule is specs/sandbox-lifecycle.yml's NetworkRule: a domain, or
// *. and a domain for its subdomains.
type networkRule struct {
	Action string `json:"action"`
	Target string `json:"target"`
}

type imageSpec struct {
	URI string `json:"uri"`
}

type volume struct {
	Name      string     `json:"name"`
	MountPath string     `json:"mountPath"`
	ReadOnly  bool       `json:"readOnly"`
	Host      hostVolume `json:"host"`
}

type hostVolume struct {
	Path string `json:"path"`
}

// sandbox is the answer to create and to get, and an item of a list.
type sandbox struct {
	ID       string            `json:"id"`
	Status   sandboxStatus     `json:"status"`
	Metadata map[string]string `json:"metadata"`
	// ExpiresAt is nil for a sandbox that never expires.
	ExpiresAt *time.Time `json:"expiresAt"`
}

type sandboxStatus struct {
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type listAnswer struct {
	Items *[]sandbox `json:"items"`
}

type renewRequest struct {
	ExpiresAt string `json:"expiresAt"`
}

type renewAnswer struct {
	ExpiresAt time.Time `json:"expiresAt"`
}

type endpointAnswer struct {
	Endpoint string            `json:"endpoint"`
	Headers  map[string]string `json:"headers"`
}

// The states of a sandbox that matter here (the server's schema.py lists
// them; the Docker runtime adds Unknown, the Kubernetes one Allocated).
const (
	stateRunning    = "Running"
	statePaused     = "Paused"
	stateFailed     = "Failed"
	stateStopping   = "Stopping"
	stateTerminated = "Terminated"
	stateUnknown    = "Unknown"
)
