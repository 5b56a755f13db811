package daytona

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// maxInput is the largest message the daemon reads from a terminal's
// WebSocket (readLimit in Daytona's apps/daemon/pkg/toolbox/process/pty/types.go):
// a larger one ends the connection, so keystrokes go in pieces of at most this.
const maxInput = 64 << 10

// terminal is a shell on a PTY session of the daemon, reached over the
// session's WebSocket: output comes as binary messages, keystrokes go as
// binary messages, and the shell's end comes as the close frame, whose
// reason holds the exit code (closeClientsWithExitCode in websocket.go).
type terminal struct {
	provider.PTYOutput
	c    *Client
	base string
	inst provider.Instance
	id   string
	conn *websocket.Conn
	// life ends with Close: reads and writes in progress stop.
	life context.Context
	end  context.CancelFunc
	// early is output that came before the daemon said it was connected.
	early []byte

	mu      sync.Mutex
	closing bool
	once    sync.Once
}

var _ provider.PTY = (*terminal)(nil)

// next reads the daemon's next message: the shell's output, or the
// connection's end, which the daemon's close says the shell's exit by.
func (t *terminal) next() (provider.PTYEvent, error) {
	if len(t.early) > 0 {
		out := t.early
		t.early = nil
		return provider.PTYEvent{Output: out}, nil
	}
	for {
		typ, data, err := t.conn.Read(t.life)
		if err != nil {
			return t.ended(err)
		}
		ctl, ok := controlOf(typ, data)
		switch {
		case !ok:
			return provider.PTYEvent{Output: data}, nil
		case ctl.Status == "error":
			return provider.PTYEvent{}, failure(provider.ErrFailed, "terminal", "the daemon dropped the terminal: %s", ctl.Error)
		}
	}
}

// exitData is the reason of the daemon's close frame: {"exitCode":3,
// "exitReason":"non-zero exit"}, the reason left out for exit 0.
type exitData struct {
	ExitCode *int `json:"exitCode"`
}

// ended sorts how the connection ended: the daemon's close for the
// shell's end is the end with its exit code (1000 for exit 0, 1011 for
// the others, and 137 for a shell killed by a delete); a close of ours is
// the end with none (-1); any other end is an error.
func (t *terminal) ended(err error) (provider.PTYEvent, error) {
	t.mu.Lock()
	closing := t.closing
	t.mu.Unlock()
	if closing {
		return provider.PTYEvent{Ended: true}, nil
	}
	status := websocket.CloseStatus(err)
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		var exit exitData
		if json.Unmarshal([]byte(ce.Reason), &exit) == nil && exit.ExitCode != nil {
			return provider.PTYEvent{Ended: true, Exited: true, ExitCode: *exit.ExitCode}, nil
		}
	}
	switch status {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway:
		// A close without an exit code is a clean exit, as Daytona's SDKs read it.
		return provider.PTYEvent{Ended: true, Exited: true}, nil
	case -1:
		return provider.PTYEvent{}, failure(provider.ErrUnreachable, "terminal", "the terminal's connection broke: %s", err)
	}
	return provider.PTYEvent{}, failure(provider.ErrFailed, "terminal", "the daemon closed the terminal: %s", err)
}

// Write sends keystrokes as they are, in binary messages the daemon can read.
func (t *terminal) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n := min(len(p)-written, maxInput)
		if err := t.conn.Write(t.life, websocket.MessageBinary, p[written:written+n]); err != nil {
			if t.life.Err() != nil {
				return written, io.ErrClosedPipe
			}
			return written, failure(provider.ErrUnreachable, "terminal", "sending keystrokes: %s", err)
		}
		written += n
	}
	return written, nil
}

// Resize sets the pty's size (POST /process/pty/{id}/resize). It goes
// straight to the toolbox: a sandbox asleep has no shell to resize. A
// session whose shell has ended is a 410 once the daemon has dropped it
// (ResizePTYSession in controller.go), and a 500 "cannot resize inactive
// PTY session" in the moment between the shell's end and the drop, for a
// session made with lazyStart, as ours are (VerifyPTYSessionForResize in
// manager.go lets those through to resize in session.go).
func (t *terminal) Resize(ctx context.Context, size provider.TermSize) error {
	const op = "resize terminal"
	body, _ := json.Marshal(map[string]uint16{"cols": size.Cols, "rows": size.Rows})
	ans, err := t.c.do(ctx, t.c.toolboxRequest(t.base, t.inst.ID, toolboxCall{op: op, method: http.MethodPost,
		path: "/process/pty/" + url.PathEscape(t.id) + "/resize", body: body, contentType: "application/json"}))
	switch {
	case err != nil:
		return err
	case ans.Status == http.StatusGone,
		ans.Status == http.StatusInternalServerError && strings.Contains(describe(ans), "cannot resize inactive PTY session"):
		return failure(provider.ErrGone, op, "the terminal's shell has ended: %s", describe(ans))
	case ans.Status != http.StatusOK:
		return toolboxError(op, ans)
	}
	return nil
}

// Close deletes the PTY session, which kills the shell and every process
// it started (DeletePTYSession in controller.go, kill in session.go), and
// drops the connection. Closing twice does nothing more.
func (t *terminal) Close() error {
	t.once.Do(func() {
		t.mu.Lock()
		t.closing = true
		t.mu.Unlock()
		t.end()
		t.deleteSession()
		_ = t.conn.CloseNow()
	})
	return nil
}

// deleteSession deletes the PTY session, once, straight at the toolbox,
// even when the caller has left; a session whose shell has ended is gone
// already (a 404).
func (t *terminal) deleteSession() {
	ctx, cancel := context.WithTimeout(context.Background(), t.c.waits.Request)
	defer cancel()
	_, _ = t.c.caller.Do(ctx, t.c.toolboxRequest(t.base, t.inst.ID, toolboxCall{
		op: "close terminal", method: http.MethodDelete, path: "/process/pty/" + url.PathEscape(t.id),
	}).call())
}
