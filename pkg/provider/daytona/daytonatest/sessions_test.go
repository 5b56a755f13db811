package daytonatest_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// follow reads a command's log over a WebSocket to its close.
func follow(t *testing.T, url string, header http.Header) string {
	t.Helper()
	header.Set("Authorization", "Bearer "+daytonatest.DefaultKey)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	conn, _, err := websocket.Dial(context.Background(), url, &websocket.DialOptions{HTTPClient: client, HTTPHeader: header})
	require.NoError(t, err)
	defer conn.CloseNow()
	var got strings.Builder
	for {
		typ, data, err := conn.Read(context.Background())
		if err != nil {
			require.Equal(t, websocket.StatusNormalClosure, websocket.CloseStatus(err), "%v", err)
			return got.String()
		}
		assert.Equal(t, websocket.MessageBinary, typ)
		got.Write(data)
	}
}

func TestSessionAnswers(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/session"
	key := daytonatest.DefaultKey

	status, header, body := call(t, "POST", base, key, `{"sessionId":"s1"}`)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	assert.Empty(t, body)
	assert.Empty(t, header.Get("Content-Type"))
	status, _, body = call(t, "POST", base, key, `{"sessionId":`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "INVALID_REQUEST_BODY", decode(t, body)["code"])
	status, _, body = call(t, "POST", base, key, `{"sessionId":"s1"}`)
	assert.Equal(t, http.StatusConflict, status)
	assert.Equal(t, "conflict: session already exists", decode(t, body)["message"])

	status, _, body = call(t, "POST", base+"/s1/exec", key, `{"command":"sh -c 'echo out; echo err >&2; printf last; exit 3'","runAsync":true}`)
	require.Equal(t, http.StatusAccepted, status, "%s", body)
	started := decode(t, body)
	cmdID, _ := started["cmdId"].(string)
	require.NotEmpty(t, cmdID)
	for _, unset := range []string{"output", "stdout", "stderr", "exitCode"} {
		assert.Contains(t, started, unset, "written as null")
		assert.Nil(t, started[unset])
	}

	logs := strings.Replace(base, "http://", "ws://", 1) + "/s1/command/" + cmdID + "/logs?follow=true"
	split := follow(t, logs, http.Header{"X-Daytona-Split-Output": {"true"}})
	assert.Contains(t, split, "\x01\x01\x01out\n", "each line after its stream's prefix")
	assert.Contains(t, split, "\x02\x02\x02err\n")
	assert.Contains(t, split, "\x01\x01\x01last\n", "a last line without a break gets one")
	combined := follow(t, logs, http.Header{})
	assert.ElementsMatch(t, []string{"out", "err", "last"}, strings.Fields(combined), "no prefixes: %q", combined)

	status, _, body = call(t, "GET", base+"/s1/command/"+cmdID, key, "")
	require.Equal(t, http.StatusOK, status)
	assert.EqualValues(t, 3, decode(t, body)["exitCode"], "known once the log is followed to its end")

	status, _, body = call(t, "GET", base+"/s1/command/"+cmdID+"/logs", key, "")
	require.Equal(t, http.StatusOK, status)
	assert.ElementsMatch(t, []string{"out", "err", "last"}, strings.Fields(string(body)), "without the upgrade: the log so far, as text")

	status, _, body = call(t, "POST", base+"/s1/exec", key, `{"command":" "}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Empty(t, body)

	status, _, body = call(t, "DELETE", base+"/s1", key, "")
	assert.Equal(t, http.StatusNoContent, status)
	assert.Empty(t, body)
	status, _, body = call(t, "DELETE", base+"/s1", key, "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "not found: session not found", decode(t, body)["message"])
	status, _, body = call(t, "POST", base+"/s1/exec", key, `{"command":"true"}`)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Equal(t, "failed to execute command: not found: session not found", decode(t, body)["message"])
}

// A sync command answers with its output and exit code once it has ended.
func TestSessionExecuteSync(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/session"
	status, _, _ := call(t, "POST", base, daytonatest.DefaultKey, `{"sessionId":"s"}`)
	require.Equal(t, http.StatusCreated, status)
	status, _, body := call(t, "POST", base+"/s/exec", daytonatest.DefaultKey, `{"command":"echo hi; (exit 4)"}`)
	require.Equal(t, http.StatusOK, status)
	res := decode(t, body)
	assert.Equal(t, "hi\n", res["output"])
	assert.EqualValues(t, 4, res["exitCode"])
}

// Deleting a session kills the command it runs, which ran in the session's
// shell itself: the lock the command held is free.
func TestSessionDeleteKillsItsCommand(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/session"
	status, _, _ := call(t, "POST", base, daytonatest.DefaultKey, `{"sessionId":"s"}`)
	require.Equal(t, http.StatusCreated, status)
	home := fake.HomeDir(id)
	status, _, body := call(t, "POST", base+"/s/exec", daytonatest.DefaultKey,
		`{"command":"exec 9>lock; flock 9; touch holding; while [ ! -e go ]; do sleep 0.05; done; touch later","runAsync":true}`)
	require.Equal(t, http.StatusAccepted, status, "%s", body)
	waitForFile(t, filepath.Join(home, "holding"))

	status, _, _ = call(t, "DELETE", base+"/s", daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusNoContent, status)
	// The shell traps TERM (the wrapper's cleanup) and is killed after; a
	// sleep it had just started goes with the SIGTERM it got, or its 50ms.
	require.Eventually(t, func() bool { return lockFree(t, filepath.Join(home, "lock")) }, 2*time.Second, 10*time.Millisecond, "the command is dead")
	require.NoError(t, os.WriteFile(filepath.Join(home, "go"), nil, 0o644))
	assert.NoFileExists(t, filepath.Join(home, "later"))
}

// A daemon from before sessions has no such routes.
func TestNoSessions(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{NoSessions: true})
	id := create(t, fake)["id"].(string)
	status, header, body := call(t, "POST", fake.ToolboxProxyURL()+"/"+id+"/process/session", daytonatest.DefaultKey, `{"sessionId":"s"}`)
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "text/plain", header.Get("Content-Type"))
	assert.Equal(t, "404 page not found", string(body))
}

// waitForFile waits until p exists: the command got that far.
func waitForFile(t *testing.T, p string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := os.Stat(p)
		return err == nil
	}, 20*time.Second, 20*time.Millisecond, "%s never appeared", p)
}

// lockFree reports whether no process holds a lock on the file p.
func lockFree(t *testing.T, p string) bool {
	t.Helper()
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false
	}
	require.NoError(t, err)
	return true
}

// A stopped sandbox's daemon is gone with its sessions and their commands.
func TestSessionsEndWithTheSandbox(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/session"
	status, _, _ := call(t, "POST", base, daytonatest.DefaultKey, `{"sessionId":"s"}`)
	require.Equal(t, http.StatusCreated, status)
	status, _, _ = call(t, "POST", base+"/s/exec", daytonatest.DefaultKey, `{"command":"exec 9>lock; flock 9; touch holding; sleep 60","runAsync":true}`)
	require.Equal(t, http.StatusAccepted, status)
	waitForFile(t, filepath.Join(fake.HomeDir(id), "holding"))

	require.NoError(t, fake.Stop(id))
	require.Eventually(t, func() bool { return lockFree(t, filepath.Join(fake.HomeDir(id), "lock")) }, 20*time.Second, 20*time.Millisecond, "the command died with the sandbox")
	require.NoError(t, fake.SetState(id, "started", "started"))
	status, _, body := call(t, "POST", base+"/s/exec", daytonatest.DefaultKey, `{"command":"true"}`)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Equal(t, "failed to execute command: not found: session not found", decode(t, body)["message"])
}

// Deleting a session does what the daemon's delete does and no more: the
// shell's process group and the tree below the shell get SIGTERM. A job in
// the group dies; one that made a session of its own and whose parent died
// first is in neither, belongs to the sandbox's init, and runs on.
func TestSessionDeleteLeavesWhatLeftTheShellsTree(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	id := create(t, fake)["id"].(string)
	base := fake.ToolboxProxyURL() + "/" + id + "/process/session"
	status, _, _ := call(t, "POST", base, daytonatest.DefaultKey, `{"sessionId":"s"}`)
	require.Equal(t, http.StatusCreated, status)
	status, _, body := call(t, "POST", base+"/s/exec", daytonatest.DefaultKey,
		`{"command":"sleep 1717 & sh -c 'setsid sleep 1718 &'; touch started; sleep 1719","runAsync":true}`)
	require.Equal(t, http.StatusAccepted, status, "%s", body)
	waitForFile(t, filepath.Join(fake.HomeDir(id), "started"))
	running := func(cmd string) bool { return slices.Contains(fake.Processes(id), cmd) }
	require.Eventually(t, func() bool { return running("sleep 1717") && running("sleep 1718") && running("sleep 1719") },
		5*time.Second, 10*time.Millisecond, "%q", fake.Processes(id))

	status, _, _ = call(t, "DELETE", base+"/s", daytonatest.DefaultKey, "")
	require.Equal(t, http.StatusNoContent, status)
	require.Eventually(t, func() bool { return !running("sleep 1717") && !running("sleep 1719") },
		5*time.Second, 10*time.Millisecond, "the group and the tree die: %q", fake.Processes(id))
	assert.True(t, running("sleep 1718"), "the orphan in a session of its own runs on: %q", fake.Processes(id))
}
