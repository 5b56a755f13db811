package bubblewrap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// crashingServer tells a run of the test binary to be a server that is
// killed while it sets a jail up: see TestCrashingServer.
const crashingServer = "BUBBLEWRAP_TEST_CRASHING_SERVER"

// TestCrashingServer is no test of its own. TestJailDiesWithItsServer runs
// the test binary as a server that starts a jail ("jail") or tries one
// through Available ("probe"), says so once the jail is set up and waits
// to start its command, and waits there to be killed.
func TestCrashingServer(t *testing.T) {
	what := os.Getenv(crashingServer)
	if what == "" {
		t.Skip("a server for TestJailDiesWithItsServer to kill")
	}
	network := checkTun(os.Geteuid() == 0) == nil
	beforeRelease = func() {
		fmt.Println("set up")
		select {} // killed here
	}
	switch what {
	case "jail":
		j := Jail{Root: filepath.Join(os.TempDir(), "root"), WorkDir: "/workspace", Network: network}
		_, err := j.Run(context.Background(), "touch ran; sleep "+marker, time.Minute, nil, nil)
		t.Fatal("the jail was never set up:", err)
	case "probe":
		t.Fatal("the trial jail was never set up:", Available(context.Background(), "", network))
	}
}

func TestJailDiesWithItsServer(t *testing.T) {
	for _, what := range []string{"jail", "probe"} {
		t.Run(what, func(t *testing.T) {
			tmp := sharedTempDir(t)
			root := filepath.Join(tmp, "root")
			require.NoError(t, os.Mkdir(root, 0o700))
			uid, gid := Jail{}.User()
			require.NoError(t, os.Chown(root, uid, gid))

			server := killWhileSettingUp(t, what, tmp)

			assert.Empty(t, awaitLeftovers(server, 10*time.Second), "no process the server started outlives it")
			_, err := os.Stat(filepath.Join(root, "ran"))
			assert.ErrorIs(t, err, os.ErrNotExist, "the jail's command never started")

			if what == "probe" {
				crashed, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("%s%d-*", probePrefix, server)))
				require.Len(t, crashed, 1, "the killed server left its trial jail's folder")
				live, err := newProbeFolder(tmp)
				require.NoError(t, err)
				sweepProbes(tmp)
				assert.NoDirExists(t, crashed[0], "the sweep removes the folder of a server that is gone")
				assert.DirExists(t, live, "and keeps the folder of one that runs")
			}
		})
	}
}

// killWhileSettingUp runs the test binary as a server, in a session of its
// own, and kills it once its jail is set up; it returns the server's pid,
// which is also its session's id.
func killWhileSettingUp(t *testing.T, what, tmp string) int {
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, "-test.run=^TestCrashingServer$", "-test.count=1", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), crashingServer+"="+what, "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	said, _ := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.Equal(t, "set up\n", said, "the server: %s", &stderr)
	return cmd.Process.Pid
}

// awaitLeftovers waits, up to limit, until every process the server left
// has exited (the kernel ends them one after another), and returns those
// that have not.
func awaitLeftovers(server int, limit time.Duration) map[int]string {
	deadline := time.Now().Add(limit)
	for {
		left := leftoversOf(server)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		for pid := range left {
			awaitExit(pid, deadline)
		}
	}
}

// awaitExit waits until process pid exits, or deadline passes.
func awaitExit(pid int, deadline time.Time) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // gone already
	}
	defer unix.Close(fd)
	for left := time.Until(deadline); left > 0; left = time.Until(deadline) {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(left/time.Millisecond)+1)
		if n > 0 || (err != nil && err != unix.EINTR) {
			return
		}
	}
}

// leftoversOf are the live processes of the session server led, and those
// with marker in their command line (a jail's command makes a session of
// its own).
func leftoversOf(server int) map[int]string {
	left := map[int]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session …
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		line := strings.ReplaceAll(string(cmdline), "\x00", " ")
		if len(fields) > 3 && fields[0] != "Z" && (fields[3] == itoa(server) || strings.Contains(line, marker)) {
			pid, _ := strconv.Atoi(filepath.Base(dir))
			left[pid] = line
		}
	}
	return left
}
