package bubblewrap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// firstProcess is the jail's first process (bwrap's init, pid 1 of the
// jail's PID namespace), held by a pidfd so that a reused pid never matters.
type firstProcess struct {
	fd int
}

// openFirstProcess takes hold of process pid, a child of bwrap's process
// parent; nil when it has already exited.
func openFirstProcess(pid, parent int) (*firstProcess, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// Still bwrap's child after the pidfd was opened, and alive after that
	// was read: then the pidfd holds it, and not a process that took its pid.
	if parentOf(pid) != parent || unix.PidfdSendSignal(fd, 0, nil, 0) != nil {
		_ = unix.Close(fd)
		return nil, nil
	}
	return &firstProcess{fd: fd}, nil
}

// parentOf returns the parent of process pid, or 0.
func parentOf(pid int) int {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …, where comm may hold anything, ")" too.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// alive reports whether the first process has not exited.
func (p firstProcess) alive() bool {
	return unix.PidfdSendSignal(p.fd, 0, nil, 0) == nil
}

// kill ends the jail's first process, and so the kernel kills the rest.
func (p firstProcess) kill() {
	_ = unix.PidfdSendSignal(p.fd, unix.SIGKILL, nil, 0)
}

// waitGone waits until the first process has exited, which happens only
// once every other process of its PID namespace is gone.
func (p firstProcess) waitGone(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return errors.New("processes of the command are still running")
		}
		fds := []unix.PollFd{{Fd: int32(p.fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
}

func (p firstProcess) close() { _ = unix.Close(p.fd) }
