package bubblewrap

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Freeze stops (frozen) or lets go on every process in the group called
// name, if it exists: on cgroup v2 by its freezer (cgroup.freeze), else by
// SIGSTOP and SIGCONT to each of its processes. A group that does not exist
// has nothing to stop.
func (cs *Cgroups) Freeze(name string, frozen bool) error {
	g := cs.group(name)
	if _, err := os.Stat(g.pids); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	value, signal := "0", unix.SIGCONT
	if frozen {
		value, signal = "1", unix.SIGSTOP
	}
	if cs.layout.unified != "" && writeOnce(filepath.Join(g.pids, "cgroup.freeze"), value) == nil {
		return nil
	}
	for _, pid := range groupPids(g.pids) {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		_ = unix.PidfdSendSignal(fd, signal, nil, 0)
		_ = unix.Close(fd)
	}
	return nil
}
