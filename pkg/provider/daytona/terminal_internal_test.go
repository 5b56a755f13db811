package daytona

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// daemonSays serves one WebSocket that sends the messages, then ends as
// end does, and returns a terminal connected to it.
func daemonSays(t *testing.T, messages []websocket.MessageType, data []string, end func(*websocket.Conn)) *terminal {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		for i, typ := range messages {
			if conn.Write(r.Context(), typ, []byte(data[i])) != nil {
				return
			}
		}
		end(conn)
	}))
	t.Cleanup(srv.Close)
	conn, _, err := websocket.Dial(context.Background(), srv.URL, nil)
	require.NoError(t, err)
	t.Cleanup(func() { conn.CloseNow() })
	tm := &terminal{conn: conn}
	tm.Next = tm.next
	tm.life, tm.end = context.WithCancel(context.Background())
	t.Cleanup(tm.end)
	return tm
}

func closing(status websocket.StatusCode, reason string) func(*websocket.Conn) {
	return func(c *websocket.Conn) { _ = c.Close(status, reason) }
}

// readAll reads the terminal to its end.
func readAll(tm *terminal) (string, error) {
	var out []byte
	buf := make([]byte, 3) // smaller than a message: the rest waits for the next Read
	for {
		n, err := tm.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return string(out), err
		}
	}
}

// How the daemon ends a terminal's WebSocket, and what Read makes of it
// (closeClientsWithExitCode in Daytona's apps/daemon/pkg/toolbox/process/pty/websocket.go,
// read as its SDKs read it in libs/sdk-go/pkg/daytona/pty_handle.go).
func TestTerminalReadsTheDaemonsClose(t *testing.T) {
	bin, text := websocket.MessageBinary, websocket.MessageText
	for _, tc := range []struct {
		name     string
		types    []websocket.MessageType
		data     []string
		end      func(*websocket.Conn)
		output   string
		code     int
		kind     error // nil: io.EOF
		contains string
	}{
		{name: "exit 3", types: []websocket.MessageType{bin}, data: []string{"bye\r\n"},
			end: closing(websocket.StatusInternalError, `{"exitCode":3,"exitReason":"non-zero exit"}`), output: "bye\r\n", code: 3},
		{name: "exit 0", end: closing(websocket.StatusNormalClosure, `{"exitCode":0}`), code: 0},
		{name: "a close without a reason is a clean exit", end: closing(websocket.StatusNormalClosure, ""), code: 0},
		{name: "a shell ended by a signal", end: closing(websocket.StatusInternalError, `{"exitCode":-1,"exitReason":"non-zero exit"}`), code: -1},
		{name: "killed by a delete", end: closing(websocket.StatusInternalError, `{"exitCode":137,"exitReason":"SIGKILL"}`), code: 137},
		{name: "text that is no control message is output", types: []websocket.MessageType{text, bin}, data: []string{"plain", " text"},
			end: closing(websocket.StatusNormalClosure, ""), output: "plain text", code: 0},
		{name: "control messages are not output", types: []websocket.MessageType{text, bin}, data: []string{`{"type":"control","status":"connected"}`, "x"},
			end: closing(websocket.StatusNormalClosure, ""), output: "x", code: 0},
		{name: "a slow reader dropped", end: closing(websocket.StatusPolicyViolation, "slow consumer"),
			code: -1, kind: provider.ErrFailed, contains: "slow consumer"},
		{name: "a control error", types: []websocket.MessageType{text}, data: []string{`{"type":"control","status":"error","error":"PTY session unavailable"}`},
			end: closing(websocket.StatusNormalClosure, ""), code: -1, kind: provider.ErrFailed, contains: "PTY session unavailable"},
		{name: "a connection dropped without a close frame", end: func(c *websocket.Conn) { _ = c.CloseNow() },
			code: -1, kind: provider.ErrUnreachable, contains: "broke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := daemonSays(t, tc.types, tc.data, tc.end)
			out, err := readAll(tm)
			assert.Equal(t, tc.output, out)
			if tc.kind == nil {
				assert.ErrorIs(t, err, io.EOF)
			} else {
				assert.ErrorIs(t, err, tc.kind)
				assert.Contains(t, err.Error(), tc.contains)
			}
			assert.Equal(t, tc.code, tm.ExitCode())
			_, again := tm.Read(make([]byte, 1))
			assert.Equal(t, err, again, "Read keeps saying how it ended")
		})
	}
}
