package opensandboxtest_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These pin the terminal's wire as components/execd/pkg/web/controller/pty_ws.go
// and model/pty_ws.go define it.

// ptyExecd creates a sandbox and returns its execd's URL (direct, with
// the access token execd was started with) and the token headers.
func ptyExecd(t *testing.T) (*opensandboxtest.Server, string, string, map[string]string) {
	t.Helper()
	fake := opensandboxtest.New(t, opensandboxtest.Options{ExecdAccessToken: "execd-token"})
	_, sb, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, nil)
	id := sb["id"].(string)
	_, ep, _ := call(t, "GET", fake.URL+"/v1/sandboxes/"+id+"/endpoints/44772", "", nil)
	return fake, id, "http://" + ep["endpoint"].(string), map[string]string{"X-EXECD-ACCESS-TOKEN": "execd-token"}
}

func newPTY(t *testing.T, execd string, token map[string]string, body string) string {
	t.Helper()
	status, created, raw := call(t, "POST", execd+"/pty", body, token)
	require.Equal(t, http.StatusCreated, status, raw)
	return created["session_id"].(string)
}

func dialPTY(t *testing.T, url string, token map[string]string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	h := http.Header{}
	for k, v := range token {
		h.Set(k, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h})
	if conn != nil {
		t.Cleanup(func() { _ = conn.CloseNow() })
	}
	return conn, resp, err
}

// frames reads a terminal's frames: text frames whole, binary ones by channel.
type frames struct {
	t      *testing.T
	conn   *websocket.Conn
	output bytes.Buffer // what stdout frames carried
}

func (f *frames) next() (websocket.MessageType, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return f.conn.Read(ctx)
}

// text reads frames until a text frame, keeping the output of stdout and
// replay frames (execd replays from ?since=, 0 when not given, on every
// attach).
func (f *frames) text() string {
	f.t.Helper()
	for {
		typ, data, err := f.next()
		require.NoError(f.t, err, "output so far: %q", f.output.String())
		if typ == websocket.MessageText {
			return string(data)
		}
		require.NotEmpty(f.t, data)
		switch data[0] {
		case 0x01:
			f.output.Write(data[1:])
		case 0x03:
			f.output.Write(data[9:])
		default:
			f.t.Fatalf("output comes on channel 0x01 (stdout), or 0x03 (replay), not %#x", data[0])
		}
	}
}

// expect reads stdout frames until their output holds want.
func (f *frames) expect(want string) {
	f.t.Helper()
	for !strings.Contains(f.output.String(), want) {
		typ, data, err := f.next()
		require.NoError(f.t, err, "output so far: %q", f.output.String())
		require.Equal(f.t, websocket.MessageBinary, typ, "a text frame: %s", data)
		require.Equal(f.t, byte(0x01), data[0])
		f.output.Write(data[1:])
	}
}

func (f *frames) send(typ websocket.MessageType, p string) {
	f.t.Helper()
	require.NoError(f.t, f.conn.Write(context.Background(), typ, []byte(p)))
}

func TestPTYSpeaksExecdsWire(t *testing.T) {
	fake, sandboxID, execd, token := ptyExecd(t)
	id := newPTY(t, execd, token, `{"cwd":"/workspace/term"}`)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id, "a UUID")

	status, body, _ := call(t, "GET", execd+"/pty/"+id, "", token)
	assert.Equal(t, 200, status)
	assert.Equal(t, map[string]any{"session_id": id, "running": false, "output_offset": 0.0}, body, "the shell starts with the first WebSocket")

	ws := "ws" + strings.TrimPrefix(execd, "http") + "/pty/" + id + "/ws"
	_, resp, err := dialPTY(t, ws, nil)
	require.Error(t, err)
	assert.Equal(t, 401, resp.StatusCode, "the access token is checked before the upgrade")
	_, resp, err = dialPTY(t, strings.Replace(ws, id, "no-such-session", 1), token)
	require.Error(t, err)
	assert.Equal(t, 404, resp.StatusCode)

	conn, _, err := dialPTY(t, ws, token)
	require.NoError(t, err)
	f := &frames{t: t, conn: conn}
	assert.Equal(t, `{"type":"connected","session_id":"`+id+`","mode":"pty"}`+"\n", f.text(), "gorilla's WriteJSON ends the frame with a line break")

	_, resp, err = dialPTY(t, ws, token)
	require.Error(t, err)
	assert.Equal(t, 409, resp.StatusCode, "one WebSocket per session")

	f.send(websocket.MessageBinary, "\x00stty size; pwd\r")
	f.expect("24 80")
	f.expect("/workspace/term")
	f.send(websocket.MessageText, `{"type":"resize","cols":120,"rows":40}`)
	f.send(websocket.MessageBinary, "\x00stty size\r")
	f.expect("40 120")
	f.send(websocket.MessageText, `{"type":"stdin","data":"echo typed-$((2+3))\r"}`)
	f.expect("typed-5")

	f.send(websocket.MessageText, `{"type":"ping"}`)
	assert.Equal(t, `{"type":"pong"}`+"\n", f.text())
	f.send(websocket.MessageText, `{"type":"bogus"}`)
	assert.Equal(t, `{"type":"error","error":"unknown frame type \"bogus\"","code":"INVALID_FRAME"}`+"\n", f.text())

	sessions, running := fake.Terminals(sandboxID)
	assert.Equal(t, [2]int{1, 1}, [2]int{sessions, running})
	f.send(websocket.MessageBinary, "\x00exit 3\r")
	assert.Equal(t, `{"type":"exit","exit_code":3}`+"\n", f.text())
	_, _, err = f.next()
	assert.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err), "%v", err)
	var ce websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "process exited", ce.Reason)

	status, _, raw := call(t, "DELETE", execd+"/pty/"+id, "", token)
	assert.Equal(t, 200, status)
	assert.Empty(t, raw)
	status, body, _ = call(t, "DELETE", execd+"/pty/"+id, "", token)
	assert.Equal(t, 404, status)
	assert.Equal(t, map[string]any{"code": "CONTEXT_NOT_FOUND", "message": "pty session " + id + " not found"}, body)
}

func TestPTYReplaysOnReattach(t *testing.T) {
	_, _, execd, token := ptyExecd(t)
	id := newPTY(t, execd, token, ``) // no body: execd takes it as no cwd
	ws := "ws" + strings.TrimPrefix(execd, "http") + "/pty/" + id + "/ws"
	conn, _, err := dialPTY(t, ws, token)
	require.NoError(t, err)
	f := &frames{t: t, conn: conn}
	require.Contains(t, f.text(), `"type":"connected"`)
	f.send(websocket.MessageBinary, "\x00echo kept-$((1+1))\r")
	f.expect("kept-2")
	require.NoError(t, conn.Close(websocket.StatusNormalClosure, ""))

	var body map[string]any
	require.Eventually(t, func() bool {
		_, body, _ = call(t, "GET", execd+"/pty/"+id, "", token)
		return body["running"] == true
	}, 5*time.Second, 50*time.Millisecond, "a closed WebSocket leaves the shell running")
	offset := int64(body["output_offset"].(float64))

	// execd lets go of the first connection's lock once its handler has
	// ended, a moment after the close: until then a newcomer gets 409.
	var again *websocket.Conn
	require.Eventually(t, func() bool {
		again, _, err = dialPTY(t, ws+"?since=0", token)
		return err == nil
	}, 5*time.Second, 20*time.Millisecond, "the reattach is let in")
	typ, frame, err := (&frames{t: t, conn: again}).next()
	require.NoError(t, err)
	require.Equal(t, websocket.MessageBinary, typ, "the replay comes before the connected frame")
	require.Equal(t, byte(0x03), frame[0], "on channel 0x03")
	assert.Equal(t, uint64(0), binary.BigEndian.Uint64(frame[1:9]), "behind the offset of its first byte")
	assert.GreaterOrEqual(t, len(frame[9:]), int(offset), "all the output so far (and the prompt, should it come after the status)")
	assert.Contains(t, string(frame[9:]), "kept-2")
	assert.Contains(t, (&frames{t: t, conn: again}).text(), `"type":"connected"`)

	status, _, _ := call(t, "DELETE", execd+"/pty/"+id, "", token)
	assert.Equal(t, 200, status)
}

func TestPTYDeleteKillsTheShell(t *testing.T) {
	fake, sandboxID, execd, token := ptyExecd(t)
	id := newPTY(t, execd, token, `{"cwd":"/workspace"}`)
	conn, _, err := dialPTY(t, "ws"+strings.TrimPrefix(execd, "http")+"/pty/"+id+"/ws", token)
	require.NoError(t, err)
	f := &frames{t: t, conn: conn}
	require.Contains(t, f.text(), `"type":"connected"`)
	f.send(websocket.MessageBinary, "\x00echo sleeping-$((1+1)); sleep 100\r")
	f.expect("sleeping-2")

	status, _, _ := call(t, "DELETE", execd+"/pty/"+id, "", token)
	assert.Equal(t, 200, status)
	assert.Equal(t, `{"type":"exit","exit_code":-1}`+"\n", f.text(), "SIGKILL to the shell's group: Go's ExitCode is -1")
	_, _, err = f.next()
	assert.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err), "%v", err)
	sessions, running := fake.Terminals(sandboxID)
	assert.Equal(t, [2]int{0, 0}, [2]int{sessions, running})
}

func TestPTYThroughTheServerProxy(t *testing.T) {
	fake := opensandboxtest.New(t, opensandboxtest.Options{APIKey: key})
	_, sb, _ := call(t, "POST", fake.URL+"/v1/sandboxes", validCreate, withKey)
	sandboxID := sb["id"].(string)
	proxy := fake.URL + "/sandboxes/" + sandboxID + "/proxy/44772"
	id := newPTY(t, proxy, nil, `{"cwd":"/workspace"}`)
	ws := "ws" + strings.TrimPrefix(proxy, "http") + "/pty/" + id + "/ws"

	conn, _, err := dialPTY(t, ws, withKey)
	require.NoError(t, err)
	f := &frames{t: t, conn: conn}
	assert.Equal(t, `{"type":"connected","session_id":"`+id+`","mode":"pty"}`+"\n", f.text(), "text frames pass as they are")

	second, resp, err := dialPTY(t, ws, nil)
	require.NoError(t, err, "the proxy accepts before it knows execd's answer")
	assert.Equal(t, 101, resp.StatusCode)
	_, _, err = (&frames{t: t, conn: second}).next()
	assert.Equal(t, websocket.StatusPolicyViolation, websocket.CloseStatus(err), "execd's 409 becomes a close with 1008: %v", err)

	gone, _, err := dialPTY(t, "ws"+strings.TrimPrefix(fake.URL, "http")+"/sandboxes/no-such-sandbox/proxy/44772/pty/"+id+"/ws", nil)
	require.NoError(t, err)
	_, _, err = (&frames{t: t, conn: gone}).next()
	var ce websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, websocket.StatusInternalError, ce.Code)
	assert.Equal(t, "{'code': 'DOCKER::SANDBOX_NOT_FOUND', 'message': 'Sandbox no-such-sandbox not found.'}", ce.Reason)

	f.send(websocket.MessageBinary, "\x00exit 7\r")
	assert.Equal(t, `{"type":"exit","exit_code":7}`+"\n", f.text())
	_, _, err = f.next()
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, websocket.StatusNormalClosure, ce.Code, "execd's close passes through")
	assert.Equal(t, "process exited", ce.Reason)
	assert.False(t, fake.ExecdSawAPIKey(), "the proxy strips the API key")
}

func TestPTYTakeover(t *testing.T) {
	_, _, execd, token := ptyExecd(t)
	id := newPTY(t, execd, token, `{"cwd":"/workspace"}`)
	ws := "ws" + strings.TrimPrefix(execd, "http") + "/pty/" + id + "/ws"
	first, _, err := dialPTY(t, ws, token)
	require.NoError(t, err)
	a := &frames{t: t, conn: first}
	require.Contains(t, a.text(), `"type":"connected"`)
	a.send(websocket.MessageBinary, "\x00export MARK=$((20+1))\r")
	a.send(websocket.MessageBinary, "\x00echo set-$MARK\r")
	a.expect("set-21")

	second, _, err := dialPTY(t, ws+"?takeover=1", token)
	require.NoError(t, err)
	b := &frames{t: t, conn: second}
	require.Contains(t, b.text(), `"type":"connected"`, "the newcomer is attached")
	for err == nil { // the holder may still have output on its way (bash's prompt) before the close
		_, _, err = a.next()
	}
	var ce websocket.CloseError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, websocket.StatusCode(4001), ce.Code, "the holder is closed with WSCloseTakenOver")
	assert.Equal(t, "TAKEN_OVER", ce.Reason)

	b.send(websocket.MessageBinary, "\x00echo still-$MARK\r")
	b.expect("still-21") // the same shell
	status, _, _ := call(t, "DELETE", execd+"/pty/"+id, "", token)
	assert.Equal(t, 200, status)
}
