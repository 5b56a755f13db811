package opensandbox

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The frames of components/execd/pkg/web/model/pty_ws.go, as the client
// reads and writes them.

func TestTerminalOutputIsReadByChannel(t *testing.T) {
	replay := append([]byte{0x03, 0, 0, 0, 0, 0, 0, 0x01, 0x2c}, "kept"...) // offset 300
	tests := []struct {
		name  string
		frame []byte
		want  string
	}{
		{"stdout", append([]byte{0x01}, "out"...), "out"},
		{"stderr, in pipe mode", append([]byte{0x02}, "err"...), "err"},
		{"replay, behind its 8-byte offset", replay, "kept"},
		{"a replay too short for its offset", []byte{0x03, 0, 0}, ""},
		{"stdin is never sent to a client", append([]byte{0x00}, "in"...), ""},
		{"an unknown channel", append([]byte{0x09}, "x"...), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(output(tt.frame)))
		})
	}
}

func TestTerminalFramesAreExecds(t *testing.T) {
	b, err := json.Marshal(resizeFrame{Type: "resize", Cols: 120, Rows: 40})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"resize","cols":120,"rows":40}`, string(b), "PTY.md's resize frame")

	var exit serverFrame
	require.NoError(t, json.Unmarshal([]byte(`{"type":"exit","exit_code":0}`+"\n"), &exit), "gorilla's WriteJSON ends frames with a line break")
	require.NotNil(t, exit.ExitCode, "exit_code 0 is sent: model.ServerFrame's ExitCode is a pointer")
	assert.Equal(t, 0, *exit.ExitCode)

	var failed serverFrame
	require.NoError(t, json.Unmarshal([]byte(`{"type":"error","error":"fork/exec: no bash","code":"START_FAILED"}`), &failed))
	assert.Equal(t, serverFrame{Type: "error", Error: "fork/exec: no bash", Code: "START_FAILED"}, failed)
}
