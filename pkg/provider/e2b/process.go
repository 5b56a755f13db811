package e2b

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The messages of envd's process.Process service, as its JSON codec
// speaks them (packages/envd/spec/process/process.proto): fields in
// lowerCamelCase, bytes in base64, enums by name, zero values left out.

type processConfig struct {
	Cmd  string            `json:"cmd"`
	Args []string          `json:"args,omitempty"`
	Envs map[string]string `json:"envs,omitempty"`
	Cwd  string            `json:"cwd,omitempty"`
}

type ptySize struct {
	Cols uint16 `json:"cols"`
	Rows uint16 `json:"rows"`
}

type ptyConfig struct {
	Size ptySize `json:"size"`
}

type startRequest struct {
	Process processConfig `json:"process"`
	Pty     *ptyConfig    `json:"pty,omitempty"`
	Stdin   *bool         `json:"stdin,omitempty"`
}

type processSelector struct {
	Pid uint32 `json:"pid"`
}

type processEvent struct {
	Event struct {
		Start *struct {
			Pid uint32 `json:"pid"`
		} `json:"start"`
		Data *struct {
			Stdout []byte `json:"stdout"`
			Stderr []byte `json:"stderr"`
			Pty    []byte `json:"pty"`
		} `json:"data"`
		End *struct {
			ExitCode int    `json:"exitCode"`
			Exited   bool   `json:"exited"`
			Status   string `json:"status"`
			Error    string `json:"error"`
		} `json:"end"`
	} `json:"event"`
}

// readEvent decodes one StartResponse (or ConnectResponse).
func readEvent(op string, raw json.RawMessage) (processEvent, error) {
	var ev processEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		return ev, failure(provider.ErrFailed, op, "malformed process event (%s): %q", err, provider.Clip(string(raw), 120))
	}
	return ev, nil
}

// start starts a process (process.Process/Start) and returns its stream.
func (e envd) start(ctx context.Context, op string, req startRequest) (*messages, error) {
	return e.stream(ctx, op, "process.Process/Start", req)
}

// signal sends SIGKILL to a process (process.Process/SendSignal).
func (e envd) kill(ctx context.Context, op string, pid uint32) error {
	return e.unary(ctx, op, "process.Process/SendSignal",
		map[string]any{"process": processSelector{Pid: pid}, "signal": "SIGNAL_SIGKILL"}, &struct{}{})
}

// killGroup ends every process of the session pid leads (a command's
// shell is started under setsid, so its jobs are in the session too):
// SendSignal reaches the one process only, so kill(1) does the rest.
func (e envd) killGroup(op string, pid uint32) {
	if pid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	no := false
	if msgs, err := e.start(ctx, op, startRequest{Process: processConfig{Cmd: "kill", Args: []string{"-KILL", "--", "-" + strconv.FormatUint(uint64(pid), 10)}}, Stdin: &no}); err == nil {
		for {
			if _, err := msgs.Next(); err != nil {
				break
			}
		}
		_ = msgs.Close()
	}
	_ = e.kill(ctx, op, pid)
}
