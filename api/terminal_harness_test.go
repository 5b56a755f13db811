package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/coder/websocket"
	"github.com/stretchr/testify/require"
)

// wsTerm is a terminal's WebSocket as a browser holds it: its binary
// frames shown on a screen, its text frames kept.
type wsTerm struct {
	t    *testing.T
	conn *websocket.Conn
	*providertest.Screen

	mu     sync.Mutex
	texts  []map[string]any     // the server's text frames
	status websocket.StatusCode // how the server closed, once closed
}

// dialTerminal opens the terminal at path (below the API) with headers;
// it fails the test unless the upgrade succeeds.
func (e *env) dialTerminal(path string, headers ...string) *wsTerm {
	e.t.Helper()
	conn, res, err := e.tryTerminal(path, headers...)
	status := 0
	if res != nil {
		status = res.StatusCode
	}
	require.NoError(e.t, err, "the upgrade (answer %d)", status)
	term := &wsTerm{t: e.t, conn: conn, Screen: providertest.NewScreen()}
	go term.read()
	e.t.Cleanup(func() { _ = conn.CloseNow() })
	return term
}

func (e *env) tryTerminal(path string, headers ...string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{}
	for i := 0; i+1 < len(headers); i += 2 {
		h.Set(headers[i], headers[i+1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.srv.URL, "http")+path, &websocket.DialOptions{HTTPHeader: h})
}

// upgradeHeaders ask for a WebSocket, for a refusal read as a plain answer.
var upgradeHeaders = []string{"Connection", "Upgrade", "Upgrade", "websocket", "Sec-WebSocket-Version", "13",
	"Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="}

func (w *wsTerm) read() {
	for {
		kind, data, err := w.conn.Read(context.Background())
		if err != nil {
			w.mu.Lock()
			w.status = websocket.CloseStatus(err)
			w.mu.Unlock()
			w.End(err)
			return
		}
		if kind == websocket.MessageBinary {
			w.Show(data)
			continue
		}
		var m map[string]any
		_ = json.Unmarshal(data, &m)
		w.mu.Lock()
		w.texts = append(w.texts, m)
		w.mu.Unlock()
	}
}

// typeKeys sends keystrokes.
func (w *wsTerm) typeKeys(keys string) {
	w.t.Helper()
	require.NoError(w.t, w.conn.Write(context.Background(), websocket.MessageBinary, []byte(keys)))
}

// control sends a text frame.
func (w *wsTerm) control(msg map[string]any) {
	w.t.Helper()
	data, _ := json.Marshal(msg)
	require.NoError(w.t, w.conn.Write(context.Background(), websocket.MessageText, data))
}

// expect waits for want in the output not yet matched.
func (w *wsTerm) expect(want string) {
	w.t.Helper()
	w.Expect(w.t, want)
}

// ended waits for the server to close the connection and returns the
// close status and the text frames it sent.
func (w *wsTerm) ended() (websocket.StatusCode, []map[string]any) {
	w.t.Helper()
	w.Ended(w.t)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.status, w.texts
}
