package opensandbox

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/coder/websocket"
)

// The frames of a terminal's WebSocket
// (components/execd/pkg/web/model/pty_ws.go): binary frames start with a
// channel byte, control goes as JSON text frames.
const (
	chanStdin  byte = 0x00 // to execd: keystrokes
	chanStdout byte = 0x01 // from execd: the pty's output
	chanStderr byte = 0x02 // from execd: stderr, in pipe mode only
	chanReplay byte = 0x03 // from execd: an 8-byte big-endian offset, then output kept from before
)

// serverFrame is execd's JSON frame (model.ServerFrame), as far as the
// client reads it: "connected", "exit" with its exit_code, "error" with
// its code and words, "pong".
type serverFrame struct {
	Type     string `json:"type"`
	ExitCode *int   `json:"exit_code"`
	Error    string `json:"error"`
	Code     string `json:"code"`
}

// resizeFrame tells execd the terminal's new size (model.ClientFrame).
type resizeFrame struct {
	Type string `json:"type"`
	Cols uint16 `json:"cols"`
	Rows uint16 `json:"rows"`
}

// terminal is an attached PTY session: a provider.PTY.
type terminal struct {
	conn *websocket.Conn
	life context.Context // ends at Close; the connection ends with it
	stop context.CancelFunc
	kill func() // deletes the session, killing its shell

	connected chan struct{} // closed at execd's connected frame
	chunks    chan []byte   // output, in order; closed when the connection ends
	ended     chan struct{} // closed once endErr is set
	endErr    error         // what Read returns once the output is read
	rest      []byte        // the part of a chunk Read has not given yet

	exited   atomic.Bool
	exitCode atomic.Int64
	failed   atomic.Pointer[serverFrame] // execd's error frame, if one came
	closing  atomic.Bool
	closed   sync.Once
}

func newTerminal(conn *websocket.Conn, kill func()) *terminal {
	t := &terminal{conn: conn, kill: kill, connected: make(chan struct{}),
		chunks: make(chan []byte, 16), ended: make(chan struct{})}
	t.life, t.stop = context.WithCancel(context.Background())
	go t.receive()
	return t
}

// receive reads execd's frames until the connection ends.
func (t *terminal) receive() {
	err := t.readFrames()
	t.endErr = t.ending(err)
	close(t.chunks)
	close(t.ended)
}

func (t *terminal) readFrames() error {
	var connected sync.Once
	for {
		typ, data, err := t.conn.Read(t.life)
		if err != nil {
			return err
		}
		if typ == websocket.MessageBinary {
			if out := output(data); len(out) > 0 {
				select {
				case t.chunks <- out:
				case <-t.life.Done():
					return t.life.Err()
				}
			}
			continue
		}
		var f serverFrame
		if json.Unmarshal(data, &f) != nil {
			continue
		}
		switch f.Type {
		case "connected":
			connected.Do(func() { close(t.connected) })
		case "exit":
			code := -1
			if f.ExitCode != nil {
				code = *f.ExitCode
			}
			t.exitCode.Store(int64(code))
			t.exited.Store(true)
		case "error":
			t.failed.Store(&f)
		}
	}
}

// output is the terminal output a binary frame carries, by its channel byte.
func output(frame []byte) []byte {
	switch {
	case len(frame) == 0:
		return nil
	case frame[0] == chanStdout || frame[0] == chanStderr:
		return frame[1:]
	case frame[0] == chanReplay && len(frame) >= 9:
		return frame[9:]
	}
	return nil
}

// ending says what Read returns once the connection has ended for err.
func (t *terminal) ending(err error) error {
	const op = "terminal"
	switch f := t.failed.Load(); {
	case t.exited.Load() || t.closing.Load():
		return io.EOF
	case f != nil:
		return failure(provider.ErrFailed, op, "execd: %s: %s", f.Code, f.Error)
	case websocket.CloseStatus(err) == websocket.StatusNormalClosure:
		return io.EOF
	case websocket.CloseStatus(err) == websocket.StatusPolicyViolation:
		// The server proxy accepts, then closes so, when execd refused its
		// handshake (server/opensandbox_server/api/proxy.py).
		return failure(provider.ErrUnreachable, op, "the server proxy could not open execd's terminal (closed with 1008)")
	case websocket.CloseStatus(err) != -1:
		var ce websocket.CloseError
		errors.As(err, &ce)
		return failure(provider.ErrUnreachable, op, "the terminal's connection was closed with %d: %s", int(ce.Code), ce.Reason)
	}
	return failure(provider.ErrUnreachable, op, "the terminal's connection broke: %s", err)
}

// Read gives the terminal's output; io.EOF once the shell has exited.
func (t *terminal) Read(p []byte) (int, error) {
	if len(t.rest) == 0 {
		chunk, ok := <-t.chunks
		if !ok {
			return 0, t.endErr
		}
		t.rest = chunk
	}
	n := copy(p, t.rest)
	t.rest = t.rest[n:]
	return n, nil
}

// Write sends keystrokes as one stdin frame.
func (t *terminal) Write(p []byte) (int, error) {
	frame := make([]byte, 1+len(p))
	frame[0] = chanStdin
	copy(frame[1:], p)
	if err := t.conn.Write(t.life, websocket.MessageBinary, frame); err != nil {
		return 0, t.sendError(err)
	}
	return len(p), nil
}

// Resize sends execd's resize frame. ctx is only checked first: a write
// given up halfway would break the connection.
func (t *terminal) Resize(ctx context.Context, size provider.TermSize) error {
	if size.Cols == 0 || size.Rows == 0 {
		return failure(provider.ErrFailed, "resize terminal", "a terminal needs a size, not %dx%d", size.Cols, size.Rows)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, _ := json.Marshal(resizeFrame{Type: "resize", Cols: size.Cols, Rows: size.Rows})
	if err := t.conn.Write(t.life, websocket.MessageText, b); err != nil {
		return t.sendError(err)
	}
	return nil
}

// sendError words a failed write: the terminal's end when it has ended.
func (t *terminal) sendError(err error) error {
	select {
	case <-t.ended:
		if errors.Is(t.endErr, io.EOF) {
			return failure(provider.ErrFailed, "terminal", "the terminal has ended")
		}
		return t.endErr
	default:
	}
	if t.closing.Load() {
		return failure(provider.ErrFailed, "terminal", "the terminal is closed")
	}
	return failure(provider.ErrUnreachable, "terminal", "the terminal's connection broke: %s", err)
}

// ExitCode is the shell's exit status, as execd's exit frame gives it
// (-1 when a signal ended it), once Read has returned io.EOF; -1 before.
func (t *terminal) ExitCode() int {
	if !t.exited.Load() {
		return -1
	}
	return int(t.exitCode.Load())
}

// Close deletes the session, which kills the shell (a closed WebSocket
// alone would leave it running in execd), then drops the connection.
func (t *terminal) Close() error {
	t.closed.Do(func() {
		t.closing.Store(true)
		t.kill()
		t.stop()
		<-t.ended
	})
	return nil
}
