package bubblewrap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// Run runs command with /bin/sh -c inside the jail, in WorkDir, writing
// output as it arrives, and ends every process of the command (including
// background ones) when it exits, when timeout passes (TimedOut true) or
// when ctx ends. A non-zero exit is a Result, not an error. A timeout of 0
// means none. Run returns once every process of the command is gone.
func (j Jail) Run(ctx context.Context, command string, timeout time.Duration, stdout, stderr io.Writer) (Result, error) {
	if err := j.validate(); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	bwrap, err := lookBwrap(j.Bwrap)
	if err != nil {
		return Result{}, err
	}
	root, err := filepath.Abs(j.Root)
	if err != nil {
		return Result{}, fmt.Errorf("bubblewrap: %w", err)
	}
	asRoot := os.Geteuid() == 0
	t, err := toolsFor(asRoot, j.Network)
	if err != nil {
		return Result{}, err
	}
	if j.Network {
		if err := checkTun(asRoot); err != nil {
			return Result{}, err
		}
	}

	// bwrap and the programs that set the jail up die with the thread that
	// started them: keep that thread until the command is over.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	began := time.Now()
	l, err := j.start(t, bwrap, root, command, stdout, stderr)
	if err != nil {
		return Result{}, err
	}
	defer l.close()

	var timedOut, cancelled atomic.Bool
	stopCancel := context.AfterFunc(ctx, func() {
		cancelled.Store(true)
		l.kill()
	})
	defer stopCancel()
	if timeout > 0 {
		timer := time.AfterFunc(timeout, func() {
			timedOut.Store(true)
			l.kill()
		})
		defer timer.Stop()
	}

	setupErr := l.handOver()
	if setupErr != nil {
		l.abort()
	}
	waitErr := l.cmd.Wait()
	took := time.Since(began)
	goneErr := l.waitGone()
	code, ran := l.exitCode()

	switch {
	case cancelled.Load():
		return Result{ExitCode: -1, Duration: took}, fmt.Errorf("bubblewrap: command ended: %w", context.Cause(ctx))
	case timedOut.Load():
		return Result{ExitCode: TimeoutExitCode, TimedOut: true, Duration: took}, goneErr
	case setupErr != nil || !ran:
		return Result{}, setupError(setupErr, waitErr, l.stderr.head)
	}
	return Result{ExitCode: code, Duration: took}, goneErr
}

// setupError explains why bwrap could not start the command, in bwrap's
// own words where it said any.
func setupError(setupErr, waitErr error, stderr []byte) error {
	var said []string
	for _, line := range strings.Split(string(stderr), "\n") {
		if strings.HasPrefix(line, "bwrap: ") {
			said = append(said, line)
		}
	}
	why := setupErr
	switch {
	case len(said) > 0:
		why = errors.New(strings.Join(said, "; "))
	case why == nil && waitErr != nil:
		why = waitErr
	case why == nil:
		why = errors.New("bwrap stopped before the command started")
	}
	return fmt.Errorf("bubblewrap could not set up the jail: %w", why)
}

// Installed says why there is no bwrap to run (an ErrNotInstalled), or nil.
func Installed(bwrap string) error {
	_, err := lookBwrap(bwrap)
	return err
}

// lookBwrap finds the bwrap to run.
func lookBwrap(bwrap string) (string, error) {
	name := bwrap
	if name == "" {
		name = "bwrap"
	}
	found, err := exec.LookPath(name)
	if err != nil {
		if bwrap == "" {
			return "", fmt.Errorf("%w: there is no \"bwrap\" in PATH (install the bubblewrap package)", ErrNotInstalled)
		}
		return "", fmt.Errorf("%w: %s cannot be run: %v", ErrNotInstalled, bwrap, errors.Unwrap(err))
	}
	return found, nil
}
