package daytona

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	"github.com/auxilia/sandboxes/pkg/provider"
)

var _ provider.TerminalOpener = (*Client)(nil)

// ptyRequest is the daemon's PtyCreateRequest (types.go in Daytona's
// apps/daemon/pkg/toolbox/process/pty).
type ptyRequest struct {
	ID        string            `json:"id"`
	Cwd       string            `json:"cwd,omitempty"`
	Envs      map[string]string `json:"envs,omitempty"`
	Cols      uint16            `json:"cols"`
	Rows      uint16            `json:"rows"`
	LazyStart bool              `json:"lazyStart"`
}

// OpenTerminal opens a login shell on a pseudo-terminal of the sandbox's
// daemon, in inst.WorkDir: a PTY session made for it (POST /process/pty),
// its WebSocket connected (GET /process/pty/{id}/connect), the session
// deleted again by Close, which kills the shell and all it started. The
// session starts lazily, when the WebSocket connects, so that the shell's
// first prompt is not shown to nobody. A daemon without PTY sessions
// (before v0.107.0) answers gin's bare 404: ErrUnsupported, saying so.
func (c *Client) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	const op = "open terminal"
	base, err := c.toolboxBase(ctx, op, inst)
	if err != nil {
		return nil, err
	}
	if size.Cols == 0 || size.Rows == 0 {
		size = provider.DefaultTermSize // the daemon would make a pty of no size
	}
	id := "auxilia-terminal-" + randomID()
	body, _ := json.Marshal(ptyRequest{ID: id, Cwd: inst.WorkDir, Envs: map[string]string{"TERM": "xterm-256color"},
		Cols: size.Cols, Rows: size.Rows, LazyStart: true})
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodPost, path: "/process/pty", body: body, contentType: "application/json"})
	switch {
	case err != nil:
		return nil, err
	case ans.Status == http.StatusNotFound && !structured(ans):
		return nil, failure(provider.ErrUnsupported, op, "the daemon of sandbox %s has no terminals (its toolbox answered %s to POST /process/pty): Daytona's daemon has them since v0.107.0; use a newer snapshot or Daytona", inst.ID, describe(ans))
	case ans.Status != http.StatusCreated && ans.Status != http.StatusOK:
		return nil, toolboxError(op, ans)
	}
	t := &terminal{c: c, base: base, inst: inst, id: id}
	t.Next = t.next
	t.life, t.end = context.WithCancel(context.Background())
	conn, pending, err := c.connectPTY(ctx, base, inst, id)
	if err != nil {
		t.deleteSession()
		t.end()
		return nil, err
	}
	t.conn, t.early = conn, pending
	return t, nil
}

// connectPTY connects the session's WebSocket and reads up to the
// daemon's control message, {"type":"control","status":"connected"}, or
// its refusal, {"type":"control","status":"error","error":…} (ConnectPTYSession
// in controller.go, attachWebSocket in websocket.go). Output may come
// before the control message: it is returned, to be read first.
func (c *Client) connectPTY(ctx context.Context, base string, inst provider.Instance, id string) (*websocket.Conn, []byte, error) {
	const op = "open terminal"
	u := strings.TrimSuffix(base, "/") + "/" + url.PathEscape(inst.ID) + "/process/pty/" + url.PathEscape(id) + "/connect"
	conn, err := c.dialToolbox(ctx, op, u)
	if err != nil {
		return nil, nil, err
	}
	var pending []byte
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			conn.CloseNow()
			if ctx.Err() != nil {
				return nil, nil, provider.RoundTripError(ctx, providerName, op, ctx.Err())
			}
			return nil, nil, failure(provider.ErrUnreachable, op, "the terminal's connection ended before the daemon said it was connected: %s", err)
		}
		ctl, ok := controlOf(typ, data)
		switch {
		case !ok:
			pending = append(pending, data...)
		case ctl.Status == "connected":
			return conn, pending, nil
		case ctl.Status == "error":
			conn.CloseNow()
			return nil, nil, failure(provider.ErrFailed, op, "the daemon refused the terminal: %s", ctl.Error)
		}
	}
}

// ptyControl is the daemon's control message, sent as text.
type ptyControl struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Error  string `json:"error"`
}

// controlOf reads a control message; any other message is the terminal's
// output (text included, as Daytona's SDKs take it).
func controlOf(typ websocket.MessageType, data []byte) (ptyControl, bool) {
	var ctl ptyControl
	if typ != websocket.MessageText || json.Unmarshal(data, &ctl) != nil || ctl.Type != "control" {
		return ptyControl{}, false
	}
	return ctl, true
}
