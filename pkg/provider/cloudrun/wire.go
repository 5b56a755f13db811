package cloudrun

import (
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The gateway's JSON is package wire's, which the gateway serves: these
// names are the client's for its types.
type (
	health           = wire.Health
	sandboxSpec      = wire.SandboxSpec
	network          = wire.Network
	resources        = wire.Resources
	sandbox          = wire.Sandbox
	restoreRequest   = wire.RestoreRequest
	restoreResult    = wire.RestoreResult
	snapshotLocation = wire.SnapshotLocation
	snapshotInfo     = wire.SnapshotInfo
	createRequest    = wire.CreateRequest
	objectRef        = wire.ObjectRef
	execRequest      = wire.ExecRequest
	exitEvent        = wire.ExitEvent
	fileInfo         = wire.FileInfo
	fileList         = wire.FileList
)

// fileInfoOf is a file of the gateway's as the provider shows it.
func fileInfoOf(f fileInfo) provider.FileInfo {
	return provider.FileInfo{Path: f.Path, Dir: f.Type == "directory", Size: f.Size, ModifiedAt: f.ModifiedAt}
}

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
