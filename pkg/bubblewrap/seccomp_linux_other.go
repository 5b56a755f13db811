//go:build linux && !amd64 && !arm64

package bubblewrap

import (
	"fmt"
	"runtime"
)

// jailFilter has no program for this architecture, and no jail runs
// without one.
func jailFilter() (string, error) {
	return "", fmt.Errorf("there is no system-call filter for %s, and jails do not run without one", runtime.GOARCH)
}
