package opensandboxtest

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// A terminal's WebSocket, GET /pty/:sessionId/ws, as
// components/execd/pkg/web/controller/pty_ws.go (PTYSessionWebSocket)
// serves it, with the frames of components/execd/pkg/web/model/pty_ws.go.

// The first byte of every binary frame says what it carries.
const (
	binStdin  byte = 0x00 // client → server: keystrokes
	binStdout byte = 0x01 // server → client: the pty's output
	binReplay byte = 0x03 // server → client: [8-byte big-endian offset][output kept from before]
)

// Timings of pty_ws.go: a ping every 30 s, a client silent for 60 s
// (pongs count) is dropped, each write may take 10 s.
const (
	wsPingInterval  = 30 * time.Second
	wsReadDeadline  = 60 * time.Second
	wsWriteDeadline = 10 * time.Second
	// A takeover waits this long for the holder to let go, and the
	// holder's close frame this long to go out.
	wsTakeoverTimeout      = 5 * time.Second
	wsTakeoverCloseTimeout = 200 * time.Millisecond
)

// wsCloseTakenOver closes a connection whose session another client took
// over (model.WSCloseTakenOver).
const wsCloseTakenOver websocket.StatusCode = 4001

// clientFrame is a JSON text frame from the client (model.ClientFrame).
type clientFrame struct {
	Type   string `json:"type"`
	Data   string `json:"data,omitempty"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Signal string `json:"signal,omitempty"`
}

// serverFrame is a JSON text frame to the client (model.ServerFrame).
type serverFrame struct {
	Type      string `json:"type"`
	SessionID string `json:"session_id,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Data      string `json:"data,omitempty"`
	Offset    int64  `json:"offset,omitempty"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Error     string `json:"error,omitempty"`
	Code      string `json:"code,omitempty"`
	Timestamp int64  `json:"timestamp,omitempty"`
}

// attachPTY serves a session's WebSocket: refusals before the upgrade,
// then bash started if it is not running, a replay frame of the output
// from ?since= on (when there is any), the connected frame, output as it
// comes, and the exit frame followed by a normal close when bash exits.
func attachPTY(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("sessionId")
	s := sb.pty(id)
	if s == nil {
		ptyNotFound(w, id)
		return
	}
	q := r.URL.Query()
	if q.Get("pty") == "0" {
		// The fake's limit, said aloud rather than answered wrongly.
		execdError(w, http.StatusNotImplemented, "NOT_SUPPORTED", "the fake execd has no pipe mode")
		return
	}
	// One WebSocket per session (LockWS): a second is refused before the
	// upgrade, unless it asks to take the session over.
	locked := s.connected.CompareAndSwap(false, true)
	if !locked && (q.Get("takeover") != "1" || !isWebSocket(r)) {
		execdError(w, http.StatusConflict, "ALREADY_CONNECTED", "another client is already connected to pty session "+id)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true}) // CheckOrigin: every origin
	if err != nil {
		if locked {
			s.connected.Store(false)
		}
		return
	}
	conn.SetReadLimit(-1) // gorilla's default: no limit
	t := &ptyConn{conn: conn, session: s}
	t.ctx, t.cancel = context.WithCancel(context.WithoutCancel(r.Context()))
	defer t.cancel()
	defer conn.CloseNow()
	// A takeover evicts the holder only once its own handshake is accepted.
	if !locked && !s.takeover(wsTakeoverTimeout) {
		_ = t.writeJSON(serverFrame{Type: "error", Code: "ALREADY_CONNECTED", Error: "takeover timed out for pty session " + id})
		return
	}

	if !s.running() {
		if err := s.start(); err != nil {
			_ = t.writeJSON(serverFrame{Type: "error", Code: "START_FAILED", Error: err.Error()})
			s.connected.Store(false)
			return
		}
	}
	since, err := strconv.ParseInt(q.Get("since"), 10, 64)
	if err != nil {
		since = 0
	}
	out, detach, snapshot, offset := s.attach(since)
	var pumps sync.WaitGroup
	var evictGen uint64
	defer func() {
		detach()
		pumps.Wait()
		s.connected.Store(false) // UnlockWS, once nothing writes for this connection
		s.clearEvict(evictGen)
	}()
	// Until the first frames are out, an eviction only drops the connection.
	evictGen = s.setEvict(func() {
		t.cancel()
		_ = conn.CloseNow()
	})

	if len(snapshot) > 0 {
		frame := make([]byte, 1+8, 1+8+len(snapshot))
		frame[0] = binReplay
		binary.BigEndian.PutUint64(frame[1:9], uint64(offset))
		if t.write(websocket.MessageBinary, append(frame, snapshot...)) != nil {
			return
		}
	}
	if t.writeJSON(serverFrame{Type: "connected", SessionID: id, Mode: "pty"}) != nil {
		return
	}
	evictGen = s.setEvict(t.evicted)
	go t.ping()
	pumps.Add(1)
	go func() {
		defer pumps.Done()
		t.pump(out)
	}()
	go t.watchExit()
	t.readClient()
}

// ptyConn is one client's connection to a session.
type ptyConn struct {
	conn    *websocket.Conn
	session *ptySession
	ctx     context.Context // ends when the connection should stop
	cancel  context.CancelFunc
}

func (t *ptyConn) write(typ websocket.MessageType, p []byte) error {
	ctx, cancel := context.WithTimeout(t.ctx, wsWriteDeadline)
	defer cancel()
	return t.conn.Write(ctx, typ, p)
}

// writeJSON sends a text frame as gorilla's WriteJSON does: the JSON and
// a line break.
func (t *ptyConn) writeJSON(f serverFrame) error {
	b, _ := json.Marshal(f)
	return t.write(websocket.MessageText, append(b, '\n'))
}

// evicted closes a connection whose session another client took over:
// with 4001 TAKEN_OVER when the close frame can go out within 200 ms, else
// without it (evictClose). Ending the connection's context drops it: its
// reads give up, and coder/websocket then closes the connection.
func (t *ptyConn) evicted() {
	closed := make(chan struct{})
	go func() {
		_ = t.conn.Close(wsCloseTakenOver, "TAKEN_OVER")
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(wsTakeoverCloseTimeout):
	}
	t.cancel()
}

// ping pings the client every wsPingInterval; one that has not answered
// by its read deadline is dropped (ptyPingLoop and the pong handler).
func (t *ptyConn) ping() {
	tick := time.NewTicker(wsPingInterval)
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(t.ctx, wsReadDeadline-wsPingInterval)
			err := t.conn.Ping(ctx)
			cancel()
			if err != nil {
				t.cancel()
				return
			}
		}
	}
}

// pump sends the pty's output in frames of at most 32 KiB, each behind its
// channel byte (ptyStreamPump).
func (t *ptyConn) pump(out io.Reader) {
	frame := make([]byte, 1+32*1024)
	frame[0] = binStdout
	for t.ctx.Err() == nil {
		n, err := out.Read(frame[1:])
		if n > 0 && t.write(websocket.MessageBinary, frame[:1+n]) != nil {
			t.cancel()
			return
		}
		if err != nil {
			return // detached
		}
	}
}

// watchExit sends {"type":"exit","exit_code":n} once bash exits and closes
// the connection normally, "process exited" (ptyExitWatcher).
func (t *ptyConn) watchExit() {
	done, _ := t.session.exited()
	select {
	case <-done:
	case <-t.ctx.Done():
		return
	}
	_, code := t.session.exited()
	_ = t.writeJSON(serverFrame{Type: "exit", ExitCode: &code})
	_ = t.conn.Close(websocket.StatusNormalClosure, "process exited")
	t.cancel()
}

// readClient handles the client's frames until the connection ends
// (ptyClientReadLoop, ptyHandleBinaryMsg, ptyHandleTextMsg).
func (t *ptyConn) readClient() {
	for {
		typ, data, err := t.conn.Read(t.ctx)
		if err != nil {
			t.cancel()
			return
		}
		switch typ {
		case websocket.MessageBinary:
			if len(data) == 0 || data[0] != binStdin {
				continue // only stdin is expected from the client
			}
			if !t.stdin(data[1:]) {
				return
			}
		case websocket.MessageText:
			var f clientFrame
			if json.Unmarshal(data, &f) != nil {
				continue // a frame that is not JSON is ignored
			}
			if !t.control(f) {
				return
			}
		}
	}
}

func (t *ptyConn) stdin(p []byte) bool {
	if _, err := t.session.writeStdin(p); err != nil {
		_ = t.writeJSON(serverFrame{Type: "error", Code: "STDIN_WRITE_FAILED", Error: err.Error()})
		t.cancel()
		return false
	}
	return true
}

func (t *ptyConn) control(f clientFrame) bool {
	switch f.Type {
	case "stdin": // plain text, for wscat
		return t.stdin([]byte(f.Data))
	case "signal":
		t.session.signal(f.Signal)
	case "resize":
		if f.Cols > 0 && f.Rows > 0 {
			_ = t.session.resize(uint16(f.Cols), uint16(f.Rows))
		}
	case "ping":
		_ = t.writeJSON(serverFrame{Type: "pong"})
	default:
		_ = t.writeJSON(serverFrame{Type: "error", Code: "INVALID_FRAME", Error: fmt.Sprintf("unknown frame type %q", f.Type)})
	}
	return true
}
