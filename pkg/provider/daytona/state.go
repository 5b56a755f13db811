package daytona

import (
	"encoding/json"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// instanceState is what the client keeps in provider.Instance.State: where
// the sandbox's toolbox is, so that a warm run needs no call to find it.
type instanceState struct {
	ToolboxProxyURL string `json:"toolboxProxyUrl"`
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
