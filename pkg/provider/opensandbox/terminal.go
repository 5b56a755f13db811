package opensandbox

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/coder/websocket"
)

// A terminal is one of execd's PTY sessions (components/execd/PTY.md):
// POST /pty makes the session, the shell starts when its WebSocket,
// GET /pty/{id}/ws, is first opened, and DELETE /pty/{id} kills it.

// execdTermSize is the size execd starts every shell with
// (components/execd/pkg/runtime/pty_session.go, StartPTY).
var execdTermSize = provider.TermSize{Cols: 80, Rows: 24}

// maxFrame bounds a frame from execd: output comes in frames of at most
// 32 KiB, but a replay frame carries up to the 1 MiB execd keeps
// (components/execd/pkg/runtime/replay_buffer.go).
const maxFrame = 2 << 20

// openTerminalOp names the opening of a terminal in errors.
const openTerminalOp = "open terminal"

type createPTYRequest struct {
	Cwd string `json:"cwd"`
}

type createPTYAnswer struct {
	SessionID string `json:"session_id"`
}

// OpenTerminal makes a PTY session in the instance's work folder, attaches
// to it and gives it size.
func (c *client) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	const op = openTerminalOp
	if size.Cols == 0 || size.Rows == 0 {
		return nil, failure(provider.ErrFailed, op, "a terminal needs a size, not %dx%d", size.Cols, size.Rows)
	}
	t, err := target(inst, op)
	if err != nil {
		return nil, err
	}
	r := c.execd(t, op, http.MethodPost, "/pty", nil)
	r.Body, r.ContentType = jsonBody(createPTYRequest{Cwd: inst.WorkDir})
	var created createPTYAnswer
	if err := c.do(ctx, r, &created); err != nil {
		return nil, err
	}
	if created.SessionID == "" {
		return nil, failure(provider.ErrFailed, op, "execd made a terminal session without an id")
	}
	term, err := c.attach(ctx, t, created.SessionID)
	if err != nil {
		return nil, err
	}
	if size != execdTermSize {
		if err := term.Resize(ctx, size); err != nil {
			_ = term.Close()
			return nil, err
		}
	}
	return term, nil
}

// attach opens the session's WebSocket and waits for execd's connected
// frame, within the request timeout (ctx bounds only the handshake: the
// connection outlives it). When it cannot, the session is deleted.
func (c *client) attach(ctx context.Context, t execdTarget, id string) (*terminal, error) {
	const op = openTerminalOp
	ctx, cancel := context.WithTimeout(ctx, c.requestTimeout)
	defer cancel()
	r := c.execd(t, op, http.MethodGet, "/pty/"+url.PathEscape(id)+"/ws", nil)
	conn, resp, err := websocket.Dial(ctx, r.URL, &websocket.DialOptions{HTTPClient: c.http, HTTPHeader: r.Header})
	if err != nil {
		c.deletePTY(ctx, t, id)
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var body []byte
			if resp.Body != nil { // the refusal's first KiB
				body, _ = io.ReadAll(resp.Body)
			}
			return nil, statusError(execdAPI, op, resp.StatusCode, body)
		}
		return nil, provider.RoundTripError(ctx, providerName, op, err)
	}
	conn.SetReadLimit(maxFrame)
	term := newTerminal(conn, func() { c.deletePTY(context.Background(), t, id) })
	select {
	case <-term.connected:
		return term, nil
	case <-term.ended:
		err = term.endErr
		if errors.Is(err, io.EOF) {
			err = failure(provider.ErrFailed, op, "execd ended the terminal before it was connected")
		}
	case <-ctx.Done():
		err = provider.RoundTripError(ctx, providerName, op, context.Cause(ctx))
	}
	_ = term.Close()
	return nil, err
}

// deletePTY kills a session's shell and forgets the session; one already
// gone is fine. It is sent even when the caller has left.
func (c *client) deletePTY(ctx context.Context, t execdTarget, id string) {
	ctx, cancel := c.detached(ctx)
	defer cancel()
	_ = c.do(ctx, c.execd(t, "close terminal", http.MethodDelete, "/pty/"+url.PathEscape(id), nil), nil)
}

var _ provider.TerminalOpener = (*client)(nil)
