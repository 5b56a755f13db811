package daytonatest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// ptySocket is a client of a PTY session's WebSocket that keeps what it reads.
type ptySocket struct {
	t      *testing.T
	conn   *websocket.Conn
	text   []string // the text messages, in order
	output strings.Builder
}

func dialPTY(t *testing.T, url string) *ptySocket {
	t.Helper()
	header := http.Header{"Authorization": {"Bearer " + daytonatest.DefaultKey}}
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	conn, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPClient: client, HTTPHeader: header})
	require.NoError(t, err)
	t.Cleanup(func() { conn.CloseNow() })
	return &ptySocket{t: t, conn: conn}
}

// readUntil reads until the output holds want, or the connection ends,
// and returns how it ended (nil while it is open).
func (s *ptySocket) readUntil(want string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for want == "" || !strings.Contains(s.output.String(), want) {
		typ, data, err := s.conn.Read(ctx)
		if err != nil {
			return err
		}
		if typ == websocket.MessageText {
			s.text = append(s.text, string(data))
			continue
		}
		s.output.Write(data)
	}
	return nil
}

func (s *ptySocket) send(keys string) {
	require.NoError(s.t, s.conn.Write(context.Background(), websocket.MessageBinary, []byte(keys)))
}

func TestPTYSessionWireFormat(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/pty"
	key := daytonatest.DefaultKey

	status, _, body := call(t, "POST", base, key, `{"id":"t1","cols":90,"rows":30,"lazyStart":true}`)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	assert.JSONEq(t, `{"sessionId":"t1"}`, string(body))
	status, _, body = call(t, "POST", base, key, `{"id":"t1"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.JSONEq(t, `{"error":"PTY session with ID 't1' already exists"}`, string(body))
	status, _, body = call(t, "POST", base, key, `{"cols":80}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.JSONEq(t, `{"error":"session ID is required"}`, string(body))
	status, _, body = call(t, "POST", base, key, `{"id":"t2","cols":1001}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.JSONEq(t, `{"error":"invalid value for cols - must be less than 1000"}`, string(body))

	// Lazy: the shell starts at the connection; the control message comes as text.
	status, _, body = call(t, "GET", base+"/t1", key, "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, false, decode(t, body)["active"])
	ws := dialPTY(t, strings.Replace(base, "http", "ws", 1)+"/t1/connect")
	ws.send("stty size; echo $TERM; pwd\n")
	require.NoError(t, ws.readUntil("xterm-256color"))
	assert.Equal(t, `{"status":"connected","type":"control"}`, ws.text[0])
	assert.Contains(t, ws.output.String(), "30 90")

	status, _, body = call(t, "POST", base+"/t1/resize", key, `{"cols":120}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Contains(t, decode(t, body)["error"], "'Rows' failed on the 'required' tag")
	status, _, body = call(t, "POST", base+"/t1/resize", key, `{"cols":120,"rows":40}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	info := decode(t, body)
	assert.Equal(t, []any{120.0, 40.0, true}, []any{info["cols"], info["rows"], info["active"]})
	ws.send("stty size\n")
	require.NoError(t, ws.readUntil("40 120"))

	// The shell's end is the close frame: 1011 and the exit code as JSON.
	ws.send("exit 3\n")
	err := ws.readUntil("never printed")
	require.Equal(t, websocket.StatusInternalError, websocket.CloseStatus(err), "%v", err)
	var ce websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.JSONEq(t, `{"exitCode":3,"exitReason":"non-zero exit"}`, ce.Reason)
	require.Eventually(t, func() bool {
		status, _, _ := call(t, "GET", base+"/t1", key, "")
		return status == http.StatusNotFound
	}, 5*time.Second, 20*time.Millisecond, "a session whose shell ended leaves the list")
	status, _, body = call(t, "POST", base+"/t1/resize", key, `{"cols":120,"rows":40}`)
	assert.Equal(t, http.StatusGone, status)
	assert.JSONEq(t, `{"error":"PTY session t1 not found"}`, string(body))

	// A session that is not there: one text message, then the connection drops.
	gone := dialPTY(t, strings.Replace(base, "http", "ws", 1)+"/t1/connect")
	err = gone.readUntil("never printed")
	assert.Equal(t, websocket.StatusCode(-1), websocket.CloseStatus(err), "no close frame: %v", err)
	assert.Equal(t, []string{`{"error":"Failed to connect to PTY session: PTY session t1 not found","status":"error","type":"control"}`}, gone.text)
}

func TestPTYSessionExitZeroAndDelete(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/pty"
	key := daytonatest.DefaultKey

	// Not lazy: the shell runs from the create.
	status, _, body := call(t, "POST", base, key, `{"id":"zero"}`)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	assert.Equal(t, true, decode(t, mustGet(t, base+"/zero"))["active"])
	ws := dialPTY(t, strings.Replace(base, "http", "ws", 1)+"/zero/connect")
	ws.send("exit\n")
	err := ws.readUntil("never printed")
	require.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err), "%v", err)
	var ce websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.JSONEq(t, `{"exitCode":0}`, ce.Reason)

	// Delete kills the shell: the clients get 137, SIGKILL.
	status, _, body = call(t, "POST", base, key, `{"id":"killed"}`)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	ws = dialPTY(t, strings.Replace(base, "http", "ws", 1)+"/killed/connect")
	ws.send("echo ready\n")
	require.NoError(t, ws.readUntil("ready"))
	status, _, body = call(t, "DELETE", base+"/killed", key, "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"message":"PTY session deleted"}`, string(body))
	err = ws.readUntil("never printed")
	require.Equal(t, websocket.StatusInternalError, websocket.CloseStatus(err), "%v", err)
	require.ErrorAs(t, err, &ce)
	assert.JSONEq(t, `{"exitCode":137,"exitReason":"SIGKILL"}`, ce.Reason)
	status, _, body = call(t, "DELETE", base+"/killed", key, "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.JSONEq(t, `{"error":"PTY session not found"}`, string(body))
}

func TestNoPTY(t *testing.T) {
	for _, opts := range []daytonatest.Options{{NoPTY: true}, {NoSessions: true}} {
		fake := daytonatest.Start(t, opts)
		id := create(t, fake)["id"].(string)
		status, header, body := call(t, "POST", fake.ToolboxProxyURL()+"/"+id+"/process/pty", daytonatest.DefaultKey, `{"id":"t"}`)
		assert.Equal(t, http.StatusNotFound, status)
		assert.Equal(t, "text/plain", header.Get("Content-Type"))
		assert.Equal(t, "404 page not found", string(body))
	}
}

func mustGet(t *testing.T, url string) []byte {
	t.Helper()
	status, _, body := call(t, "GET", url, daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	return body
}
