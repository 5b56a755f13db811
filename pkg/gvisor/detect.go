package gvisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// The platforms runsc may intercept system calls with.
const (
	Ptrace  = "ptrace"  // any Linux host; the slowest on system calls
	Systrap = "systrap" // seccomp traps, faster; runsc builds from mid-2023 on
	KVM     = "kvm"     // hardware virtualisation; needs /dev/kvm
)

// Platforms lists the platforms, the default first.
func Platforms() []string { return []string{Ptrace, Systrap, KVM} }

// ParsePlatform checks a platform's name; its error completes "… must …".
func ParsePlatform(value string) (string, error) {
	for _, p := range Platforms() {
		if value == p {
			return p, nil
		}
	}
	return "", fmt.Errorf("must be one of %s, not %q", strings.Join(Platforms(), ", "), value)
}

// Probe says how to try runsc.
type Probe struct {
	// Runsc is the binary ("" = "runsc" from PATH).
	Runsc string
	// Platform is one of Platforms ("" = Ptrace).
	Platform string
	// Timeout bounds the trial sandbox (0 = DefaultTimeout).
	Timeout time.Duration
}

// DefaultTimeout bounds a trial sandbox: one starts in about 0.3 s.
const DefaultTimeout = 20 * time.Second

// Status is what Detect found.
type Status struct {
	// Runsc is the binary's path, once found and seen to start a sandbox.
	Runsc string
	// Platform is the one tried.
	Platform string
	// Err says why gVisor cannot run here; nil where it can.
	Err error
}

// Available reports whether gVisor runs here.
func (s Status) Available() bool { return s.Runsc != "" && s.Err == nil }

// Runs reports whether runsc starts sandboxes here, even where it is too
// old to offer (its sandboxes cannot stat files): enough to test a
// Container, not to run instances.
func (s Status) Runs() bool { return s.Runsc != "" && (s.Err == nil || errors.Is(s.Err, errStat)) }

// Reason says why gVisor cannot run here, "" where it can.
func (s Status) Reason() string {
	switch {
	case s.Err != nil:
		return s.Err.Error()
	case s.Runsc == "":
		return "gVisor was not looked for on this server"
	}
	return ""
}

// Detect finds runsc and runs probeLine in a sandbox of its own with the
// probe's platform and no network. It never fails itself: Status says why
// gVisor cannot run here.
func Detect(ctx context.Context, p Probe) Status {
	return detect(ctx, p, os.Geteuid())
}

func detect(ctx context.Context, p Probe, euid int) Status {
	s := Status{Platform: p.Platform}
	if s.Platform == "" {
		s.Platform = Ptrace
	}
	if _, err := ParsePlatform(s.Platform); err != nil {
		s.Err = fmt.Errorf("the platform %w", err)
		return s
	}
	name := p.Runsc
	if name == "" {
		name = "runsc"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		s.Err = fmt.Errorf("runsc is not installed (%s not found)", name)
		return s
	}
	if euid != 0 {
		s.Err = errors.New("the server is not root, and runsc needs root to make its sandboxes here")
		return s
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if err := try(ctx, path, s.Platform, timeout); errors.Is(err, errStat) {
		s.Runsc, s.Err = path, err
		return s
	} else if err != nil {
		s.Err = fmt.Errorf("runsc fails with the %s platform: %w", s.Platform, err)
		return s
	}
	s.Runsc = path
	return s
}

// probeLine is the trial sandbox's command: it needs the sandbox to start
// and this host's own tools to stat a file there. runsc builds before 2023
// refuse (EINVAL) the statx flag AT_NO_AUTOMOUNT that coreutils 9's ls and
// stat pass, so `ls -l` fails on every file; such a runsc is not offered.
const probeLine = "stat / >/dev/null 2>&1 || exit 97"

// statFails is probeLine's exit code where stat failed.
const statFails = 97

// errStat is why a runsc that cannot stat is not offered.
var errStat = errors.New("runsc runs, but its sandbox cannot stat files with this host's tools (`ls -l` and `stat` fail with \"Invalid argument\": " +
	"this runsc refuses the statx flag AT_NO_AUTOMOUNT of coreutils 9; runsc from 2023 on is needed)")

// try runs probeLine under `runsc do` in a state folder of its own,
// removed after.
func try(ctx context.Context, runsc, platform string, timeout time.Duration) error {
	state, err := os.MkdirTemp("", "auxilia-runsc-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, runsc, "--root="+state, "--platform="+platform, "--network=none", "do", "/bin/sh", "-c", probeLine)
	cmd.Dir = state
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	switch {
	case ctx.Err() != nil && err != nil:
		return fmt.Errorf("no answer within %s", timeout)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == statFails {
			return errStat
		}
		if words := Words(out.String()); words != "" {
			return errors.New(words)
		}
		return err
	}
	return nil
}

// maxWords bounds what Words keeps of runsc's output.
const maxWords = 300

// Words is what runsc said of a failure, fit for an error: its last line
// that says something, without the log's prefix, at most maxWords bytes.
func Words(output string) string {
	lines := strings.Split(strings.TrimSpace(output), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		// glog's prefix: "W1204 20:21:06.769990   10693 util.go:64] "
		if _, rest, ok := strings.Cut(line, "] "); ok && len(line) > 0 && strings.ContainsRune("IWEF", rune(line[0])) {
			line = strings.TrimSpace(rest)
		}
		line = strings.TrimPrefix(line, "FATAL ERROR: ")
		if line == "" {
			continue
		}
		if len(line) > maxWords {
			line = strings.ToValidUTF8(line[:maxWords], "") + "…"
		}
		return line
	}
	return ""
}
