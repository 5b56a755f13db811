package fakekit

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestProcessesGivesParentsAndSessions(t *testing.T) {
	// A process named with a space and parentheses, as comm may be, in a session of its own.
	dir := t.TempDir()
	sleep, err := exec.LookPath("sleep")
	require.NoError(t, err)
	odd := dir + "/a (b) c"
	require.NoError(t, os.Symlink(sleep, odd))
	cmd := exec.Command(odd, "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})

	byPID := map[int]Process{}
	for _, p := range Processes() {
		byPID[p.PID] = p
	}
	assert.Equal(t, Process{PID: cmd.Process.Pid, Parent: os.Getpid(), Session: cmd.Process.Pid}, byPID[cmd.Process.Pid])
	own, err := unix.Getsid(0)
	require.NoError(t, err)
	assert.Equal(t, Process{PID: os.Getpid(), Parent: os.Getppid(), Session: own}, byPID[os.Getpid()])
}
