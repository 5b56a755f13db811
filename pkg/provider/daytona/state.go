package daytona

import (
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// instanceState is what the client keeps in provider.Instance.State: where
// the sandbox's toolbox is, so that a warm run needs no call to find it.
type instanceState struct {
	ToolboxProxyURL string `json:"toolboxProxyUrl"`
	// PausedWith says what the last pause kept, as Reconnect found the
	// sandbox: "memory" when Daytona had paused it, "files" when it had
	// stopped or archived it (a class it does not pause, an API without
	// pause, an auto-stop).
	PausedWith string `json:"pausedWith,omitempty"`
}

func stateOf(inst provider.Instance) instanceState {
	var s instanceState
	_ = json.Unmarshal(inst.State, &s) // an unreadable state is an empty one: the control plane refills it
	return s
}

func (s instanceState) raw() json.RawMessage {
	b, _ := json.Marshal(s) // a struct of strings always encodes
	return b
}

// instanceOf is the provider.Instance for a sandbox, its work dir known.
func instanceOf(sb sandbox, workDir string) provider.Instance {
	return provider.Instance{ID: sb.ID, WorkDir: workDir, State: instanceState{ToolboxProxyURL: sb.ToolboxProxyURL}.raw()}
}

// keptBy is what a sandbox in state keeps of what ran in it: "memory"
// paused, "files" stopped or archived, "" otherwise.
func keptBy(state string) string {
	switch state {
	case "paused", "pausing":
		return "memory"
	case "stopped", "stopping", "archived", "archiving":
		return "files"
	}
	return ""
}
