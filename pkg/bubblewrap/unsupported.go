//go:build !linux

package bubblewrap

import (
	"context"
	"errors"
	"io"
	"time"
)

var errNotLinux = errors.New("bubblewrap runs only on Linux")

// Available reports that bubblewrap cannot run here.
func Available(ctx context.Context, bwrapPath string, network bool) error { return errNotLinux }

// Run refuses to run anything: there is no bubblewrap off Linux.
func (j Jail) Run(ctx context.Context, command string, timeout time.Duration, stdout, stderr io.Writer) (Result, error) {
	return Result{}, errNotLinux
}
