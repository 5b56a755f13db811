package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dial opens a connection to the server, to speak HTTP to it by hand.
func dial(t *testing.T, srv *server) net.Conn {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	c, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// healthy sends a request for /healthz on c and reads the answer; it
// returns what reads the connection on.
func healthy(t *testing.T, c net.Conn) *bufio.Reader {
	t.Helper()
	_, err := fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: auxilia\r\n\r\n")
	require.NoError(t, err)
	r := bufio.NewReader(c)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, res.Body)
	require.Equal(t, 200, res.StatusCode)
	return r
}

// closedWithin reads r, from c, until the server closes c; it reports
// whether the server did within d.
func closedWithin(c net.Conn, r io.Reader, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// answered reports whether a request already sent on c is answered within d.
func answered(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := http.ReadResponse(bufio.NewReader(c), nil)
	return err == nil
}

// sockets counts the sockets the server's process has open.
func sockets(t *testing.T, srv *server) int {
	dir := fmt.Sprintf("/proc/%d/fd", srv.cmd.Process.Pid)
	fds, err := os.ReadDir(dir)
	require.NoError(t, err)
	n := 0
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && strings.HasPrefix(link, "socket:") {
			n++
		}
	}
	return n
}

// Idle keep-alive connections once stayed open for ever: enough of them
// ran the server out of file descriptors.
func TestIdleConnectionsAreClosed(t *testing.T) {
	srv := instance(t, "AUXILIA_HTTP_IDLE_TIMEOUT=1s")
	c := dial(t, srv)
	r := healthy(t, c)
	assert.True(t, closedWithin(c, r, 20*time.Second), "the server closes a connection idle past its timeout")
}

// A body trickled a byte at a time once held its connection for ever,
// whether or not its request came with a token.
func TestATrickledBodyIsCutOff(t *testing.T) {
	srv := instance(t, "AUXILIA_HTTP_BODY_TIMEOUT=1s")
	for _, token := range []string{"", adminToken} {
		c := dial(t, srv)
		_, err := fmt.Fprintf(c, "POST /api/v1/agents HTTP/1.1\r\nHost: auxilia\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", token)
		require.NoError(t, err)
		closed := make(chan struct{})
		go func() { _, _ = io.Copy(io.Discard, c); close(closed) }()
		func() {
			for range 200 {
				select {
				case <-closed:
					return
				case <-time.After(100 * time.Millisecond):
					_, _ = c.Write([]byte(" "))
				}
			}
			t.Errorf("with token %q, the server still reads a body trickled for 20 s", token)
		}()
	}
}

// Connections were accepted without bound. Past the cap they wait, not
// served and not held open by the server, until one closes.
func TestConnectionsPastTheCapWait(t *testing.T) {
	const capacity = 4
	srv := instance(t, fmt.Sprintf("AUXILIA_HTTP_MAX_CONNECTIONS=%d", capacity))
	var busy []net.Conn
	for range capacity { // each in the middle of sending its body
		c := dial(t, srv)
		_, err := fmt.Fprint(c, "POST /api/v1/agents HTTP/1.1\r\nHost: auxilia\r\nContent-Length: 10\r\n\r\n{")
		require.NoError(t, err)
		busy = append(busy, c)
	}
	var waiting []net.Conn
	for range 3 {
		c := dial(t, srv)
		_, err := fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: auxilia\r\n\r\n")
		require.NoError(t, err)
		waiting = append(waiting, c)
	}
	assert.False(t, answered(waiting[0], time.Second), "a connection past the cap is not served")
	// The listener, the connections in use and the one being held back.
	assert.LessOrEqual(t, sockets(t, srv), capacity+2, "connections past the cap are not held open")

	busy[0].Close()
	assert.True(t, answered(waiting[0], 10*time.Second), "a waiting connection is served once another closes")
}

// Connections kept alive between requests give way to a new one.
func TestIdleConnectionsGiveWayPastTheCap(t *testing.T) {
	srv := instance(t, "AUXILIA_HTTP_MAX_CONNECTIONS=2")
	first, second := dial(t, srv), dial(t, srv)
	r1, r2 := healthy(t, first), healthy(t, second)
	healthy(t, dial(t, srv))
	closed := 0
	for _, c := range []struct {
		conn net.Conn
		r    io.Reader
	}{{first, r1}, {second, r2}} {
		if closedWithin(c.conn, c.r, time.Second) {
			closed++
		}
	}
	assert.Equal(t, 1, closed, "one idle connection was closed to make room")
}

// The deadlines bound a client, not the handler: a command longer than the
// body and write timeouts runs to its end, answered whole or streamed.
func TestLongCommandsOutliveTheDeadlines(t *testing.T) {
	srv := instance(t, "AUXILIA_HTTP_BODY_TIMEOUT=1s", "AUXILIA_HTTP_WRITE_TIMEOUT=1s")
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	status, run := startRun(t, srv, agent, "t1")
	require.Equal(t, 201, status, "%v", run)
	id := run["id"].(string)

	assert.Equal(t, "done\n", execute(t, srv, id, "sleep 3; echo done")["output"])

	body, _ := json.Marshal(map[string]any{"command": "echo started; sleep 3; echo done"})
	req, err := http.NewRequest("POST", srv.URL+"/api/v1/runs/"+id+"/execute", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	stream, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Contains(t, string(stream), `data: {"text":"done\n"}`)
	assert.Contains(t, string(stream), "event: exit")
}
