package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/coder/websocket"
)

// A terminal's WebSocket frames, as Auxilia's own terminal route speaks them:
//   - caller → gateway, binary: keystrokes, bytes as typed;
//   - caller → gateway, text: {"type":"resize","cols":120,"rows":40};
//   - gateway → caller, binary: what the terminal shows;
//   - gateway → caller, text: {"type":"exit","code":3} when the shell ends
//     (then close 1000), or {"type":"error","message":"…"} (then close 1011).
type termControl struct {
	Type    string `json:"type"`
	Cols    uint16 `json:"cols,omitempty"`
	Rows    uint16 `json:"rows,omitempty"`
	Code    *int   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// maxKeystrokeFrame bounds one frame of keystrokes (a large paste).
const maxKeystrokeFrame = 1 << 20

// writeWait bounds one frame's write to a caller that stopped reading.
const writeWait = 30 * time.Second

// bridgeTerminal relays between conn and pty until the shell ends or the
// caller goes; either way the shell is ended and conn closed.
func bridgeTerminal(conn *websocket.Conn, pty provider.PTY) {
	conn.SetReadLimit(maxKeystrokeFrame)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	output := make(chan struct{})
	go func() {
		defer close(output)
		relayOutput(ctx, conn, pty)
	}()
	relayInput(ctx, conn, pty)
	// The caller went, or the output side closed the connection: end the shell.
	_ = pty.Close()
	<-output
	_ = conn.CloseNow()
}

// relayOutput sends the terminal's output, then how the shell ended.
func relayOutput(ctx context.Context, conn *websocket.Conn, pty provider.PTY) {
	buf := make([]byte, 32<<10)
	for {
		n, err := pty.Read(buf)
		if n > 0 {
			if writeFrame(ctx, conn, websocket.MessageBinary, buf[:n]) != nil {
				return
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			code := pty.ExitCode()
			sendControl(ctx, conn, termControl{Type: "exit", Code: &code})
			_ = conn.Close(websocket.StatusNormalClosure, "")
			return
		case err != nil:
			sendControl(ctx, conn, termControl{Type: "error", Message: err.Error()})
			_ = conn.Close(websocket.StatusInternalError, "")
			return
		}
	}
}

// relayInput types the caller's keystrokes and applies its resizes, until
// the connection ends.
func relayInput(ctx context.Context, conn *websocket.Conn, pty provider.PTY) {
	for {
		kind, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if kind == websocket.MessageBinary {
			if _, err := pty.Write(data); err != nil {
				return
			}
			continue
		}
		var c termControl
		if json.Unmarshal(data, &c) != nil || c.Type != "resize" || c.Cols == 0 || c.Rows == 0 ||
			c.Cols > maxTermCells || c.Rows > maxTermCells {
			continue // not a control this terminal knows: ignored, as a terminal ignores a sequence it does not know
		}
		_ = pty.Resize(ctx, provider.TermSize{Cols: c.Cols, Rows: c.Rows})
	}
}

func sendControl(ctx context.Context, conn *websocket.Conn, c termControl) {
	raw, _ := json.Marshal(c)
	_ = writeFrame(ctx, conn, websocket.MessageText, raw)
}

func writeFrame(ctx context.Context, conn *websocket.Conn, kind websocket.MessageType, data []byte) error {
	ctx, cancel := context.WithTimeout(ctx, writeWait)
	defer cancel()
	return conn.Write(ctx, kind, data)
}
