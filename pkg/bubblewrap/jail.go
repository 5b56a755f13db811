package bubblewrap

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"
)

// Bind makes a host path visible inside the jail.
type Bind struct {
	Host, Sandbox string
	ReadOnly      bool
}

// Jail is where a command runs: what it sees of the host and what it may use.
type Jail struct {
	Bwrap        string   // path to bwrap ("" = "bwrap" from PATH)
	Root         string   // host directory mounted read-write at WorkDir
	WorkDir      string   // absolute path inside, e.g. "/workspace"
	Home         string   // $HOME inside ("" = WorkDir)
	Network      bool     // false: no network at all inside
	Egress       Egress   // with Network: where the jail may connect, within the wall
	MemoryMB     int      // 0 = no limit
	MaxProcesses int      // 0 = no limit
	MaxFileMB    int      // largest file a command may write; 0 = no limit
	Binds        []Bind   // extra binds
	Env          []string // extra KEY=VALUE
	Cgroup       *Cgroup  // bounds this jail together with the others in it; nil = none

	// UID and GID are the host user and group commands run as when the
	// server runs as root (0 = 65534, nobody). Otherwise commands run as the
	// server's own user.
	UID, GID int

	tty *os.File // the command's terminal, under RunTerminal; nil: none
}

// Result is how a command ended.
type Result struct {
	ExitCode int // 128+n when signal n ended it; TimeoutExitCode when TimedOut
	TimedOut bool
	Duration time.Duration
}

// TimeoutExitCode is the exit code of a command that ran out of time (as timeout(1) reports).
const TimeoutExitCode = 124

// ErrNotInstalled is returned when there is no bwrap to run.
var ErrNotInstalled = errors.New("bubblewrap is not installed")

// nobody is the user a root server runs commands as, unless told otherwise.
const nobody = 65534

// User returns the host uid and gid the jail's commands run as: files in
// Root that commands must change have to belong to them.
func (j Jail) User() (uid, gid int) {
	if os.Geteuid() != 0 {
		return os.Geteuid(), os.Getegid()
	}
	uid, gid = j.UID, j.GID
	if uid == 0 {
		uid = nobody
	}
	if gid == 0 {
		gid = nobody
	}
	return uid, gid
}

func (j Jail) home() string {
	if j.Home == "" {
		return j.WorkDir
	}
	return j.Home
}

// validate refuses settings that would make a broken or a leaky jail.
func (j Jail) validate() error {
	var errs []error
	if j.Root == "" {
		errs = append(errs, errors.New("the jail has no root folder"))
	}
	if !isSandboxDir(j.WorkDir) {
		errs = append(errs, fmt.Errorf("work dir %q is not an absolute path below /", j.WorkDir))
	}
	if j.Home != "" && !isSandboxDir(j.Home) {
		errs = append(errs, fmt.Errorf("home %q is not an absolute path below /", j.Home))
	}
	if j.MemoryMB < 0 || j.MaxProcesses < 0 || j.MaxFileMB < 0 {
		errs = append(errs, errors.New("limits cannot be negative"))
	}
	for _, b := range j.Binds {
		if !path.IsAbs(b.Host) || !isSandboxDir(b.Sandbox) {
			errs = append(errs, fmt.Errorf("bind %q → %q: both paths must be absolute, and not /", b.Host, b.Sandbox))
		}
	}
	for _, kv := range j.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			errs = append(errs, fmt.Errorf("env %q is not KEY=VALUE", kv))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bubblewrap: invalid jail: %w", err)
	}
	return nil
}

// isSandboxDir reports whether p is a clean absolute path other than "/".
func isSandboxDir(p string) bool {
	return path.IsAbs(p) && path.Clean(p) == p && p != "/"
}
