package gvisor_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/gvisor"
	"github.com/auxilia/sandboxes/pkg/gvisor/gvisortest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The host user the test container runs as.
const testUID = 600123

func startContainer(t *testing.T) (gvisor.Container, string) {
	t.Helper()
	s := gvisortest.RequireRuns(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	require.NoError(t, os.Mkdir(ws, 0o700))
	require.NoError(t, os.Chown(ws, testUID, testUID))
	c := gvisor.Container{ID: fmt.Sprintf("auxilia-test-%d-%d", os.Getpid(), time.Now().UnixNano()), Runsc: s.Runsc, Platform: s.Platform,
		State: filepath.Join(dir, "state"), Bundle: filepath.Join(dir, "bundle")}
	ctx := context.Background()
	require.NoError(t, c.Start(ctx, gvisor.Spec{Root: filepath.Join(dir, "root"), System: bubblewrap.HostSystem(testUID, testUID, "/workspace"),
		Workspace: ws, UID: testUID, GID: testUID, MemoryMB: 1024, MaxProcesses: 512, Env: []string{"MARK=set"}}))
	t.Cleanup(func() { assert.NoError(t, c.Delete(context.Background())) })
	return c, ws
}

func TestACommandRunsInTheContainerAsItsUser(t *testing.T) {
	c, ws := startContainer(t)
	var out, errs bytes.Buffer
	res, err := c.Exec(context.Background(), testUID, testUID, `id -u; echo hi > f; echo oops >&2; exit 3`, 0, &out, &errs)
	require.NoError(t, err)
	assert.Equal(t, gvisor.Result{ExitCode: 3}, res)
	assert.Equal(t, "600123\n", out.String())
	assert.Equal(t, "oops\n", errs.String())
	got, err := os.ReadFile(filepath.Join(ws, "f"))
	require.NoError(t, err)
	assert.Equal(t, "hi\n", string(got), "the workspace is the host folder")
	info, err := os.Stat(filepath.Join(ws, "f"))
	require.NoError(t, err)
	assert.EqualValues(t, testUID, info.Sys().(*syscall.Stat_t).Uid, "owned by the instance's user")
}

func TestTheHostIsReadOnlyAndOffline(t *testing.T) {
	c, _ := startContainer(t)
	var out bytes.Buffer
	res, err := c.Exec(context.Background(), testUID, testUID,
		`touch /etc/x 2>/dev/null && echo wrote-etc; cat /proc/net/dev | grep -c ':' ; echo done`, 0, &out, &out)
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.NotContains(t, out.String(), "wrote-etc")
	assert.Contains(t, out.String(), "done")
}

func TestATimeoutEndsTheCommandAndWhatItStarted(t *testing.T) {
	c, _ := startContainer(t)
	start := time.Now()
	res, err := c.Exec(context.Background(), testUID, testUID, `sleep 300 & echo $! > bg; sleep 300`, 500*time.Millisecond, nil, nil)
	require.NoError(t, err)
	assert.True(t, res.TimedOut)
	assert.Less(t, time.Since(start), 10*time.Second)
	var out bytes.Buffer
	_, err = c.Exec(context.Background(), testUID, testUID, `s=$(cut -d' ' -f3 /proc/$(cat bg)/stat 2>/dev/null); [ -z "$s" ] && echo gone || echo "left ($s)"`, 0, &out, &out)
	require.NoError(t, err)
	assert.Equal(t, "gone\n", out.String(), "what it started in the background ended with it")
}

func TestPauseHoldsCommandsAndResumeLetsThemGo(t *testing.T) {
	c, _ := startContainer(t)
	ctx := context.Background()
	require.NoError(t, c.Pause(ctx))
	require.NoError(t, c.Resume(ctx))
	var out bytes.Buffer
	res, err := c.Exec(ctx, testUID, testUID, `echo back`, 0, &out, &out)
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Equal(t, "back\n", out.String())
}

func TestDeleteTwiceIsNoError(t *testing.T) {
	c, _ := startContainer(t)
	require.NoError(t, c.Delete(context.Background()))
	require.NoError(t, c.Delete(context.Background()))
}

// runsc 20221219 failed `ls -l` and `stat` on every file with "Invalid
// argument" (it refuses coreutils 9's statx flag AT_NO_AUTOMOUNT); Detect
// refuses such a runsc, so wherever a container runs, these work.
func TestLsAndStatWorkInTheWorkspace(t *testing.T) {
	gvisortest.Require(t)
	c, ws := startContainer(t)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "f"), []byte("hi\n"), 0o600))
	require.NoError(t, os.Chown(filepath.Join(ws, "f"), testUID, testUID))
	var out bytes.Buffer
	res, err := c.Exec(context.Background(), testUID, testUID, `ls -l /workspace && stat -c '%s %u' /workspace/f && stat /workspace >/dev/null`, 0, &out, &out)
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode, out.String())
	assert.Contains(t, out.String(), " f\n")
	assert.Contains(t, out.String(), "3 600123\n")
}

func TestWhatACommandLeftRunningEndsWithItAndItsEnvironmentIsTheContainers(t *testing.T) {
	c, _ := startContainer(t)
	start := time.Now()
	var out bytes.Buffer
	res, err := c.Exec(context.Background(), testUID, testUID, `sleep 300 & echo $! > bg; echo "$MARK"; exit 5`, 0, &out, &out)
	require.NoError(t, err)
	assert.Equal(t, gvisor.Result{ExitCode: 5}, res)
	assert.Equal(t, "set\n", out.String())
	assert.Less(t, time.Since(start), 10*time.Second, "not held by what it left")
	out.Reset()
	_, err = c.Exec(context.Background(), testUID, testUID, `[ -e /proc/$(cat bg) ] && echo left || echo gone`, 0, &out, &out)
	require.NoError(t, err)
	assert.Equal(t, "gone\n", out.String())
}
