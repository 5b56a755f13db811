package daytonatest

import (
	"syscall"
	"time"
)

// The daemon's defaults for ending a session's shell: how long it waits
// after SIGTERM, and how often it looks (DAYTONA_TERMINATION_GRACE_PERIOD
// and DAYTONA_TERMINATION_CHECK_INTERVAL in Daytona's
// apps/daemon/cmd/daemon/config/config.go).
const (
	terminationGracePeriod   = 5 * time.Second
	terminationCheckInterval = 100 * time.Millisecond
)

// terminateSession ends a session's shell as the daemon does, and no more
// (terminateSession in apps/daemon/pkg/session/delete.go): SIGTERM to the
// shell's process group, then to every process the walk down from the
// shell finds; then, unless the shell is gone or has no children left
// within the grace period, SIGKILL alike. A process in a group of its own
// whose parent died first is neither in the group nor below the shell any
// more: it runs on.
func terminateSession(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	signalProcessTree(pid, syscall.SIGTERM)
	if waitForTermination(pid, terminationGracePeriod, terminationCheckInterval) {
		return
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	signalProcessTree(pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

// signalProcessTree signals pid's descendants, the deepest first, as the
// daemon's signalProcessTree does: each level's children read once.
func signalProcessTree(pid int, sig syscall.Signal) {
	kids := children(pid)
	for _, child := range kids {
		signalProcessTree(child, sig)
	}
	for _, child := range kids {
		_ = syscall.Kill(child, sig)
	}
}

// waitForTermination reports whether, within timeout, the shell is gone or
// has no children (waitForTermination in delete.go).
func waitForTermination(pid int, timeout, interval time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		time.Sleep(interval)
		if !exists(pid) || len(children(pid)) == 0 {
			return true
		}
	}
	return false
}
