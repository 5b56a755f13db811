package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/coder/websocket"
)

// The WebSocket pump: it carries a terminal session's output to its
// connection and the connection's keystrokes and resizes to the shell.
// Which sessions exist, and who may take one back, is terminal_sessions.go's.

// Bounds of a terminal's connection.
const (
	// terminalFrameLimit bounds a frame from the client (a paste).
	terminalFrameLimit = 1 << 20
	// terminalWriteTimeout bounds a write to the client.
	terminalWriteTimeout = time.Minute
)

// read passes the shell's output on until it ends.
func (s *terminalSession) read() {
	for {
		buf := make([]byte, 32<<10)
		n, err := s.term.Read(buf)
		if n > 0 {
			s.out <- buf[:n]
		}
		if err != nil {
			s.ended = err
			close(s.out)
			return
		}
	}
}

// attach serves the shell on conn until either ends: a dropped connection
// leaves the shell for another (release); an ended shell closes conn.
func (ss *terminalSessions) attach(s *terminalSession, conn *websocket.Conn) {
	conn.SetReadLimit(terminalFrameLimit)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dropped := make(chan struct{})
	go func() {
		defer close(dropped)
		s.takeInput(ctx, conn)
	}()
	if len(s.pending) > 0 {
		if !s.send(ctx, conn, s.pending) {
			ss.release(s)
			return
		}
		s.pending = nil
	}
	for {
		select {
		case chunk, ok := <-s.out:
			if !ok {
				ss.finish(s, conn)
				return
			}
			if !s.send(ctx, conn, chunk) {
				s.pending = chunk
				ss.release(s)
				return
			}
		case <-dropped:
			_ = conn.CloseNow()
			ss.release(s)
			return
		}
	}
}

// send writes output to the client; false when the connection is gone.
func (s *terminalSession) send(ctx context.Context, conn *websocket.Conn, chunk []byte) bool {
	ctx, cancel := context.WithTimeout(ctx, terminalWriteTimeout)
	defer cancel()
	return conn.Write(ctx, websocket.MessageBinary, chunk) == nil
}

// terminalControl is a text frame: a resize from the client; an exit or an
// error from the server.
type terminalControl struct {
	Type    string `json:"type"`
	Cols    int    `json:"cols,omitempty"`
	Rows    int    `json:"rows,omitempty"`
	Code    *int   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// takeInput types the client's keystrokes and applies its resizes until
// the connection drops.
func (s *terminalSession) takeInput(ctx context.Context, conn *websocket.Conn) {
	for {
		kind, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if kind == websocket.MessageBinary {
			if _, err := s.term.Write(data); err != nil {
				return
			}
			continue
		}
		var ctl terminalControl
		if json.Unmarshal(data, &ctl) != nil || ctl.Type != "resize" ||
			ctl.Cols < 1 || ctl.Rows < 1 || ctl.Cols > maxTerminalCells || ctl.Rows > maxTerminalCells {
			continue // not a control this server knows: ignored, as the keystrokes go on
		}
		_ = s.term.Resize(ctx, provider.TermSize{Cols: uint16(ctl.Cols), Rows: uint16(ctl.Rows)})
	}
}

// finish ends the session, then tells the client how the shell ended and
// closes the connection: a client that reads the close finds it audited.
func (ss *terminalSessions) finish(s *terminalSession, conn *websocket.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), terminalWriteTimeout)
	defer cancel()
	ss.mu.Lock()
	stopping := ss.stopping
	ss.mu.Unlock()
	if stopping {
		ss.end(s, "the server shut down")
		msg, _ := json.Marshal(terminalControl{Type: "error", Message: "The server is shutting down: open a new shell once it is back."})
		_ = conn.Write(ctx, websocket.MessageText, msg)
		_ = conn.Close(websocket.StatusGoingAway, "")
		return
	}
	code := s.term.ExitCode()
	if errors.Is(s.ended, io.EOF) {
		ss.end(s, fmt.Sprintf("the shell exited with %d", code))
		msg, _ := json.Marshal(terminalControl{Type: "exit", Code: &code})
		_ = conn.Write(ctx, websocket.MessageText, msg)
		_ = conn.Close(websocket.StatusNormalClosure, "")
		return
	}
	why := problemOf(s.ended).Detail
	var pe *provider.Error
	if errors.As(s.ended, &pe) {
		why = pe.Error() // scrubbed of the provider's secret
	}
	ss.end(s, "it failed: "+why)
	msg, _ := json.Marshal(terminalControl{Type: "error", Message: why})
	_ = conn.Write(ctx, websocket.MessageText, msg)
	_ = conn.Close(websocket.StatusInternalError, "")
}
