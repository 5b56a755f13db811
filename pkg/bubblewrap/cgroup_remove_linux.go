package bubblewrap

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// removeGroupDir removes a group's folder in one hierarchy, first ending
// what still runs in it: the jails of a server that stopped mid-command
// die with it, but may take a moment.
func removeGroupDir(dir string) error {
	deadline := time.Now().Add(exitTimeout)
	for {
		err := unix.Rmdir(dir)
		switch {
		case err == nil, errors.Is(err, unix.ENOENT):
			return nil
		case !errors.Is(err, unix.EBUSY) || time.Now().After(deadline):
			return fmt.Errorf("remove cgroup %s: %w", dir, err)
		}
		killGroup(dir)
		time.Sleep(10 * time.Millisecond)
	}
}

// killGroup ends every process in the group's folder dir.
func killGroup(dir string) {
	if writeOnce(filepath.Join(dir, "cgroup.kill"), "1") == nil {
		return // cgroup v2 kills them all at once
	}
	for _, pid := range groupPids(dir) {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		// Still in the group once held: then the pidfd holds a process of
		// the group, and not one that took a dead one's pid.
		if slices.Contains(groupPids(dir), pid) {
			_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		}
		_ = unix.Close(fd)
	}
}

// groupPids lists the processes in the group's folder dir.
func groupPids(dir string) []int {
	var pids []int
	for _, field := range strings.Fields(readString(filepath.Join(dir, "cgroup.procs"))) {
		if pid, err := strconv.Atoi(field); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}
