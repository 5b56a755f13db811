// Package gvisortest lets a test need gVisor without skipping silently.
package gvisortest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gvisor"
)

var (
	once   sync.Once
	status gvisor.Status
)

// Status is what gvisor.Detect finds on this host with the default
// platform, probed once per test binary.
func Status() gvisor.Status {
	once.Do(func() { status = gvisor.Detect(context.Background(), gvisor.Probe{}) })
	return status
}

// RequireRuns is Require for a test of runsc itself: it accepts a runsc
// that starts sandboxes even where Detect finds it too old to offer.
func RequireRuns(t testing.TB) gvisor.Status {
	t.Helper()
	s := Status()
	if s.Runs() {
		return s
	}
	return Require(t)
}

// Require ends a test that needs gVisor where it cannot run, saying why:
// it fails where the environment variable CI is set (a CI host must be
// able to run it: make test-deps installs a runsc that does), and is
// skipped elsewhere.
func Require(t testing.TB) gvisor.Status {
	t.Helper()
	s := Status()
	if s.Available() {
		return s
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("gVisor is needed in CI: %s", s.Reason())
	}
	t.Skipf("gVisor cannot run here: %s", s.Reason())
	return s
}
