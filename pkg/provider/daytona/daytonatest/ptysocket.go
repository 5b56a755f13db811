package daytonatest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The daemon's limits on a PTY's WebSockets (types.go in
// apps/daemon/pkg/toolbox/process/pty).
const (
	ptyWriteWait = 10 * time.Second
	// PTYReadLimit is the largest message the daemon reads from a client:
	// a larger one ends the connection.
	PTYReadLimit = 64 << 10
	// ptyClientQueue is how many outputs wait for a client: a client that
	// falls further behind is dropped.
	ptyClientQueue = 256
)

// ptyClient is one WebSocket attached to a session (wsClient in types.go).
type ptyClient struct {
	conn      *websocket.Conn
	send      chan []byte
	done      chan struct{}
	closeOnce sync.Once
}

func (cl *ptyClient) close() {
	cl.closeOnce.Do(func() {
		close(cl.done)
		_ = cl.conn.CloseNow()
	})
}

// attach serves one client until it goes: registered first, so that it
// misses no output, then {"type":"control","status":"connected"} as a text
// message; the pty's output goes to it as binary messages, and every
// message it sends, text or binary, goes to the pty as typed
// (attachWebSocket, clientWriter and clientReader in websocket.go).
func (ps *ptySession) attach(ctx context.Context, conn *websocket.Conn) {
	cl := &ptyClient{conn: conn, send: make(chan []byte, ptyClientQueue), done: make(chan struct{})}
	ps.clientsMu.Lock()
	ps.clients[cl] = struct{}{}
	ps.clientsMu.Unlock()
	ps.mu.Lock()
	sessionCtx := ps.ctx
	ps.mu.Unlock()

	ps.runs.Add(1)
	go ps.clientWriter(sessionCtx, cl)
	connected, _ := json.Marshal(map[string]string{"type": "control", "status": "connected"})
	_ = conn.Write(ctx, websocket.MessageText, connected)

	conn.SetReadLimit(PTYReadLimit)
	for {
		_, data, err := conn.Read(ctx)
		if err != nil {
			break
		}
		if !ps.send(sessionCtx, data) {
			ps.closeClient(cl, websocket.StatusInternalError, "PTY session unavailable")
			break
		}
	}
	ps.clientsMu.Lock()
	delete(ps.clients, cl)
	ps.clientsMu.Unlock()
	cl.close()
}

// send hands a client's input to the pty's writer, unless the shell is over.
func (ps *ptySession) send(ctx context.Context, data []byte) bool {
	select {
	case ps.in <- data:
		return true
	case <-ctx.Done():
		return false
	}
}

func (ps *ptySession) clientWriter(ctx context.Context, cl *ptyClient) {
	defer ps.runs.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case <-cl.done:
			return
		case b := <-cl.send:
			// A deadline only, as the daemon's (SetWriteDeadline): a write
			// cancelled by the shell's end would drop the connection before
			// closeClients sends the exit in its close frame.
			wctx, cancel := context.WithTimeout(context.Background(), ptyWriteWait)
			err := cl.conn.Write(wctx, websocket.MessageBinary, b)
			cancel()
			if err != nil {
				return
			}
		}
	}
}

// broadcast queues output for every client; a client whose queue is full
// is closed with 1008 "slow consumer" (broadcast in websocket.go).
func (ps *ptySession) broadcast(b []byte) {
	ps.clientsMu.Lock()
	defer ps.clientsMu.Unlock()
	for cl := range ps.clients {
		select {
		case cl.send <- b:
		case <-cl.done:
		default:
			ps.runs.Add(1)
			go func() {
				defer ps.runs.Done()
				ps.closeClient(cl, websocket.StatusPolicyViolation, "slow consumer")
			}()
		}
	}
}

// closeClients closes every client with the shell's exit: close code 1000
// for exit 0, else 1011, and the reason {"exitCode":n,"exitReason":…}, the
// reason left out for exit 0 and named for the others: "Ctrl+C" (130),
// "SIGKILL" (137), "SIGTERM" (143), "signal n" (128+n), else "non-zero
// exit" (closeClientsWithExitCode in websocket.go). The daemon writes the
// close frame and drops the connection without waiting for the client's.
func (ps *ptySession) closeClients(code int) {
	status := websocket.StatusNormalClosure
	var reason *string
	if code != 0 {
		status = websocket.StatusInternalError
		r := "non-zero exit"
		switch {
		case code == 130:
			r = "Ctrl+C"
		case code == 137:
			r = "SIGKILL"
		case code == 143:
			r = "SIGTERM"
		case code > 128:
			r = fmt.Sprintf("signal %d", code-128)
		}
		reason = &r
	}
	data, _ := json.Marshal(struct {
		ExitCode   int     `json:"exitCode"`
		ExitReason *string `json:"exitReason,omitempty"`
	}{code, reason})
	ps.clientsMu.Lock()
	clients := ps.clients
	ps.clients = map[*ptyClient]struct{}{}
	ps.clientsMu.Unlock()
	for cl := range clients {
		ps.runs.Add(1)
		go func() {
			defer ps.runs.Done()
			ps.closeClient(cl, status, string(data))
		}()
	}
}

// closeClient sends a close frame and ends the connection. coder/websocket
// waits for the client's own close frame, up to five seconds, where the
// daemon's gorilla/websocket does not wait; a client reading its
// connection sees the same.
func (ps *ptySession) closeClient(cl *ptyClient, status websocket.StatusCode, reason string) {
	_ = cl.conn.Close(status, reason)
	cl.close()
}
