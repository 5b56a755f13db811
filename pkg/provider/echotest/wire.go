package echotest

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The echo protocol, as client and server both speak it. Every call but
// the health check carries the token as a bearer; every refusal is a
// refusal document. Instances live under /instances/{id}.

// The states an instance passes through.
const (
	stateStarting = "starting"
	stateReady    = "ready"
	// statePaused: paused by POST /instances/{id}/pause, with its files,
	// until POST /instances/{id}/resume.
	statePaused = "paused"
)

// instance is an instance as the server shows it.
type instance struct {
	ID      string            `json:"id"`
	State   string            `json:"state"`
	WorkDir string            `json:"work_dir"`
	Labels  map[string]string `json:"labels"`
}

// labelInstance is the label that holds a creation's own id.
const labelInstance = "instance"

// createRequest asks for a new instance.
type createRequest struct {
	WorkDir string            `json:"work_dir"`
	Labels  map[string]string `json:"labels"`
	// SnapshotID, when set, fills the new instance's folder from a
	// snapshot (POST /instances/{id}/snapshots made it; DELETE
	// /snapshots/{id} deletes it).
	SnapshotID string `json:"snapshot_id,omitempty"`
}

// snapshot is a copy of an instance's folder.
type snapshot struct {
	ID      string    `json:"id"`
	TakenAt time.Time `json:"taken_at"`
}

// listAnswer lists the instances that carry a label.
type listAnswer struct {
	Instances []instance `json:"instances"`
}

// execRequest runs a command; the answer is a stream of execEvents, one
// JSON object a line, the last one with Exit.
type execRequest struct {
	Command   string `json:"command"`
	TimeoutMS int64  `json:"timeout_ms"`
}

type execEvent struct {
	Stream string `json:"stream,omitempty"` // "stdout" or "stderr"
	Text   string `json:"text,omitempty"`
	Exit   *exit  `json:"exit,omitempty"`
}

type exit struct {
	Code       int   `json:"code"`
	TimedOut   bool  `json:"timed_out"`
	DurationMS int64 `json:"duration_ms"`
}

// entry describes a file or a folder.
type entry struct {
	Path       string    `json:"path"`
	Dir        bool      `json:"dir"`
	Size       int64     `json:"size"`
	ModifiedAt time.Time `json:"modified_at"`
}

func (e entry) provider() provider.FileInfo {
	return provider.FileInfo{Path: e.Path, Dir: e.Dir, Size: e.Size, ModifiedAt: e.ModifiedAt}
}

type listing struct {
	Entries []entry `json:"entries"`
}

// refusal is the server's answer to what it does not do, with a stable code.
type refusal struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The codes of refusals, and the contract's error kinds they are.
var refusalKinds = map[string]error{
	codeUnauthorized: provider.ErrUnauthorized,
	codeBadRequest:   provider.ErrInvalidConfig,
	codeNoInstance:   provider.ErrGone,
	codeNoFile:       provider.ErrNotFound,
	codeOutside:      provider.ErrPath,
	codeNoSnapshot:   provider.ErrGone,
}

const (
	codeUnauthorized = "unauthorized"
	codeBadRequest   = "bad_request"
	codeNoInstance   = "no_instance"
	codeNoFile       = "no_file"
	codeOutside      = "outside"
	codeFailed       = "failed"
	codeNoSnapshot   = "no_snapshot"
)
