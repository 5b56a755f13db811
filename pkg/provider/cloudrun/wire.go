package cloudrun

import (
	"encoding/json"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The gateway's JSON, as much of it as the client reads (docs/cloudrun-gateway.yaml).

type health struct {
	CLIMounted  bool   `json:"cli_mounted"`
	AllowEgress bool   `json:"allow_egress"`
	Detail      string `json:"detail"`
}

type sandboxSpec struct {
	GCSBucket      string            `json:"gcs_bucket,omitempty"`
	SnapshotPrefix string            `json:"snapshot_prefix,omitempty"`
	Network        network           `json:"network"`
	Resources      resources         `json:"resources"`
	Labels         map[string]string `json:"labels,omitempty"`
}

// network is where a sandbox's commands may connect to, as the common
// block's network says.
type network struct {
	Default string   `json:"default"`
	Allow   []string `json:"allow"`
	Deny    []string `json:"deny"`
}

// resources bound a sandbox within the gateway's own bounds; 0 is those.
type resources struct {
	MemoryMB int `json:"memory_mb"`
	DiskMB   int `json:"disk_mb"`
}

type sandbox struct {
	ID          string `json:"id"`
	WorkDir     string `json:"work_dir"`
	AllowEgress bool   `json:"allow_egress"`
}

type restoreRequest struct {
	Source string `json:"source"`
	sandboxSpec
}

type restoreResult struct {
	Sandbox   sandbox `json:"sandbox"`
	Recreated bool    `json:"recreated"`
}

type snapshotLocation struct {
	GCSBucket      string `json:"gcs_bucket"`
	SnapshotPrefix string `json:"snapshot_prefix"`
}

type execRequest struct {
	Command     string `json:"command"`
	Timeout     int    `json:"timeout"`
	OutputLimit int    `json:"output_limit"`
}

type exitEvent struct {
	ExitCode        int   `json:"exit_code"`
	TimedOut        bool  `json:"timed_out"`
	DurationMS      int64 `json:"duration_ms"`
	StdoutTruncated bool  `json:"stdout_truncated"`
	StderrTruncated bool  `json:"stderr_truncated"`
}

type fileInfo struct {
	Path       string    `json:"path"`
	Type       string    `json:"type"`
	Size       int64     `json:"size"`
	ModifiedAt time.Time `json:"modified_at"`
}

func (f fileInfo) provider() provider.FileInfo {
	return provider.FileInfo{Path: f.Path, Dir: f.Type == "directory", Size: f.Size, ModifiedAt: f.ModifiedAt}
}

type fileList struct {
	Entries []fileInfo `json:"entries"`
}

type problem struct {
	Title   string       `json:"title"`
	Status  int          `json:"status"`
	Detail  string       `json:"detail"`
	Reason  auxilia.Code `json:"reason"`
	Subject string       `json:"subject"`
}

func (p problem) reason() reason { return reason{p.Reason, p.Subject} }

// instanceState is what the client keeps with an instance: the labels it
// was created with, so a restore from its snapshot labels it alike.
type instanceState struct {
	Labels map[string]string `json:"labels,omitempty"`
}

func stateOf(inst provider.Instance) instanceState {
	var st instanceState
	_ = json.Unmarshal(inst.State, &st) // an empty or foreign state just has no labels
	return st
}

func (st instanceState) raw() json.RawMessage {
	raw, _ := json.Marshal(st)
	return raw
}
