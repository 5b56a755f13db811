// Package wire is the Cloud Run gateway's JSON (docs/cloudrun-gateway.yaml):
// the requests and answers that the gateway (pkg/gateway) serves and the
// Cloud Run provider (pkg/provider/cloudrun) sends and reads, declared once
// for both, errors (Problem) included. It imports only the standard library
// and the API's error codes (pkg/auxilia), so that the provider does not take
// in the gateway's own dependencies; what each side checks or makes of these
// values stays on that side.
package wire

import "time"

// Health is what GET /health answers.
type Health struct {
	// CLIMounted is true when the launcher can run sandboxes.
	CLIMounted  bool   `json:"cli_mounted"`
	AllowEgress bool   `json:"allow_egress"`
	Launcher    string `json:"launcher"`
	// Detail says why the launcher cannot run sandboxes.
	Detail string `json:"detail,omitempty"`
}

// Network is where a sandbox's commands may connect to: what no rule names
// gets Default (allow or deny); a deny beats an allow. Rules name IP
// addresses, CIDR networks or domains; a domain stands for the addresses
// the gateway resolves it to when a command starts.
type Network struct {
	Default string   `json:"default"`
	Allow   []string `json:"allow"`
	Deny    []string `json:"deny"`
}

// Resources bound what each sandbox's commands use, within the
// deployment's own bounds; 0 is the deployment's bound.
type Resources struct {
	MemoryMB int `json:"memory_mb"`
	DiskMB   int `json:"disk_mb"`
}

// Sandbox is a sandbox as the gateway shows it.
type Sandbox struct {
	ID      string `json:"id"`
	WorkDir string `json:"work_dir"`
	// AllowEgress is whether commands may reach the network: asked for and allowed by the gateway.
	AllowEgress     bool `json:"allow_egress"`
	EgressRequested bool `json:"egress_requested"`
	// Network is where commands may connect to, as granted.
	Network        Network           `json:"network"`
	Resources      Resources         `json:"resources"`
	GCSBucket      string            `json:"gcs_bucket"`
	SnapshotPrefix string            `json:"snapshot_prefix"`
	Labels         map[string]string `json:"labels"`
	CreatedAt      time.Time         `json:"created_at"`
	LastActiveAt   time.Time         `json:"last_active_at"`
}

// SandboxSpec is what a sandbox is created with, on create and on a
// restore that re-creates it.
type SandboxSpec struct {
	GCSBucket      string `json:"gcs_bucket,omitempty"`
	SnapshotPrefix string `json:"snapshot_prefix,omitempty"`
	// AllowEgress is what older clients send instead of Network: true
	// lets commands connect anywhere.
	AllowEgress bool              `json:"allow_egress,omitempty"`
	Network     *Network          `json:"network,omitempty"`
	Resources   Resources         `json:"resources"`
	Labels      map[string]string `json:"labels,omitempty"`
}

// ObjectRef names one object in a bucket.
type ObjectRef struct {
	GCSBucket string `json:"gcs_bucket"`
	Object    string `json:"object"`
}

// CreateRequest is a create's body: the spec, and what to start from.
type CreateRequest struct {
	SandboxSpec
	// From names a snapshot object whose files become the new sandbox's
	// workspace (a kept copy of another sandbox's); without it the
	// workspace starts empty.
	From *ObjectRef `json:"from,omitempty"`
}

// RestoreRequest asks for a restore from the bucket.
type RestoreRequest struct {
	// Source is "snapshot": the object <snapshot_prefix><id>.tar in gcs_bucket.
	Source string `json:"source"`
	// Replace lets the restore overwrite a live sandbox's workspace; without
	// it a live sandbox is left as it is (409), so a late retry loses no work.
	Replace bool `json:"replace,omitempty"`
	SandboxSpec
}

// RestoreResult is the answer of a restore.
type RestoreResult struct {
	Sandbox   Sandbox `json:"sandbox"`
	Source    string  `json:"source"` // "upload" or "snapshot"
	Snapshot  string  `json:"snapshot,omitempty"`
	Recreated bool    `json:"recreated"`
	Entries   int     `json:"entries"`
	Bytes     int64   `json:"bytes"`
}

// SnapshotLocation names a snapshot's bucket and prefix.
type SnapshotLocation struct {
	GCSBucket      string `json:"gcs_bucket"`
	SnapshotPrefix string `json:"snapshot_prefix"`
}

// SnapshotInfo is a snapshot as stored.
type SnapshotInfo struct {
	URI        string `json:"uri"` // gs://bucket/object
	Bucket     string `json:"bucket"`
	Object     string `json:"object"`
	Size       int64  `json:"size"`
	Generation string `json:"generation,omitempty"`
	Entries    int    `json:"entries"`
}

// ExecRequest is the body of POST /sandboxes/{id}/exec.
type ExecRequest struct {
	Command string `json:"command"`
	// Timeout is in seconds, 1-3600; 1800 when absent.
	Timeout *int `json:"timeout"`
	// OutputLimit caps each stream in bytes, at most 2 MiB (the default).
	OutputLimit *int `json:"output_limit"`
}

// ExitEvent is how a command ended: the stream's last event.
type ExitEvent struct {
	ExitCode        int   `json:"exit_code"`
	TimedOut        bool  `json:"timed_out"`
	DurationMS      int64 `json:"duration_ms"`
	StdoutTruncated bool  `json:"stdout_truncated"`
	StderrTruncated bool  `json:"stderr_truncated"`
}

// FileInfo describes a file or directory in a workspace.
type FileInfo struct {
	Path       string    `json:"path"`
	Name       string    `json:"name"`
	Type       string    `json:"type"` // file, directory, symlink or other
	Size       int64     `json:"size"`
	Mode       string    `json:"mode"`
	ModifiedAt time.Time `json:"modified_at"`
}

// FileList is the answer of GET files/list.
type FileList struct {
	Path      string     `json:"path"`
	Entries   []FileInfo `json:"entries"`
	Truncated bool       `json:"truncated"`
}
