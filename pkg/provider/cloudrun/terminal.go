package cloudrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/coder/websocket"
)

// maxOutputFrame bounds one frame of a terminal's output (the gateway
// sends at most 32 KiB at a time).
const maxOutputFrame = 1 << 20

// termControl is a text frame of the gateway's terminal route
// (pkg/gateway/termbridge.go): resize from us; exit or error from it.
type termControl struct {
	Type    string `json:"type"`
	Cols    uint16 `json:"cols,omitempty"`
	Rows    uint16 `json:"rows,omitempty"`
	Code    *int   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// OpenTerminal opens the gateway's terminal route for the sandbox: an
// interactive shell in its jail, over a WebSocket.
func (c *client) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	const op = "terminal"
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	k := call{op: op, method: http.MethodGet, path: sandboxPath(inst.ID, "/terminal"),
		query: url.Values{"cols": {strconv.Itoa(int(size.Cols))}, "rows": {strconv.Itoa(int(size.Rows))}}}
	header := http.Header{}
	c.caller().Auth(header)
	header.Set("User-Agent", c.caller().UserAgent)
	conn, resp, err := websocket.Dial(ctx, c.providerCall(k).URL, &websocket.DialOptions{HTTPClient: c.http, HTTPHeader: header})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			body, _ := io.ReadAll(resp.Body)
			return nil, c.caller().Refusal(op, provider.Answer{Status: resp.StatusCode, Header: resp.Header, Body: body})
		}
		return nil, provider.RoundTripError(ctx, providerName, op, err)
	}
	conn.SetReadLimit(maxOutputFrame)
	life, end := context.WithCancel(context.Background())
	t := &remoteTerminal{conn: conn, life: life, end: end}
	t.Next = t.next
	return t, nil
}

// remoteTerminal is a shell on the gateway, reached over its WebSocket.
type remoteTerminal struct {
	provider.PTYOutput
	conn *websocket.Conn
	life context.Context // ends with Close: reads and writes in progress stop
	end  context.CancelFunc

	closed atomic.Bool
	once   sync.Once
}

// next reads the gateway's next message: the shell's output (binary), or
// its word on how the shell ended (text); a connection that ended without
// that word is the end of a terminal we closed, or a lost connection.
func (t *remoteTerminal) next() (provider.PTYEvent, error) {
	for {
		kind, data, err := t.conn.Read(t.life)
		switch {
		case err != nil:
			return provider.PTYEvent{}, t.ended(err)
		case kind == websocket.MessageBinary:
			return provider.PTYEvent{Output: data}, nil
		}
		var c termControl
		if json.Unmarshal(data, &c) != nil {
			continue
		}
		switch {
		case c.Type == "exit" && c.Code != nil:
			return provider.PTYEvent{Ended: true, Exited: true, ExitCode: *c.Code}, nil
		case c.Type == "error":
			return provider.PTYEvent{}, provider.Errorf(provider.ErrFailed, providerName, "terminal", "%s", orDefault(c.Message, "the terminal failed"))
		}
	}
}

// ended is what Read returns for a connection that ended without the
// gateway's word: the end of a terminal we closed, or a lost connection.
func (t *remoteTerminal) ended(err error) error {
	if t.closed.Load() || websocket.CloseStatus(err) == websocket.StatusNormalClosure {
		return io.EOF
	}
	return provider.Errorf(provider.ErrUnreachable, providerName, "terminal", "the connection to the terminal was lost: %v", err)
}

// Write types p on the terminal.
func (t *remoteTerminal) Write(p []byte) (int, error) {
	if err := t.conn.Write(t.life, websocket.MessageBinary, p); err != nil {
		return 0, t.writeError(err)
	}
	return len(p), nil
}

// Resize tells the gateway the terminal's new size.
func (t *remoteTerminal) Resize(ctx context.Context, size provider.TermSize) error {
	raw, _ := json.Marshal(termControl{Type: "resize", Cols: size.Cols, Rows: size.Rows})
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	unhook := context.AfterFunc(t.life, stop)
	defer unhook()
	if err := t.conn.Write(ctx, websocket.MessageText, raw); err != nil {
		return t.writeError(err)
	}
	return nil
}

func (t *remoteTerminal) writeError(err error) error {
	if t.closed.Load() || errors.Is(err, context.Canceled) {
		return provider.Errorf(provider.ErrGone, providerName, "terminal", "the terminal is closed")
	}
	return provider.Errorf(provider.ErrUnreachable, providerName, "terminal", "%v", err)
}

// Close ends the connection; the gateway then kills the shell.
func (t *remoteTerminal) Close() error {
	t.once.Do(func() {
		t.closed.Store(true)
		_ = t.conn.Close(websocket.StatusNormalClosure, "")
		t.end()
	})
	return nil
}

var _ provider.TerminalOpener = (*client)(nil)
