package gateway

import (
	"context"
	"io"
	"strings"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// BubblewrapLauncher runs each command in a fresh bubblewrap jail with the
// sandbox's workspace mounted read-write at /workspace and the host's
// system read-only.
type BubblewrapLauncher struct {
	Bwrap        string // "" finds bwrap on PATH
	MemoryMB     int    // per process; 0 = no limit
	MaxProcesses int    // 0 = no limit
	MaxFileMB    int    // largest file a command may write; 0 = no limit
	Network      bool   // sandboxes may be given network (egress is allowed)
}

// NewBubblewrapLauncher returns a launcher with the configuration's limits.
func NewBubblewrapLauncher(cfg Config) *BubblewrapLauncher {
	return &BubblewrapLauncher{Bwrap: cfg.BwrapPath, MemoryMB: cfg.SandboxMemoryMB, MaxProcesses: cfg.SandboxMaxProcesses,
		MaxFileMB: cfg.SandboxMaxFileMB, Network: cfg.AllowEgress}
}

func (l *BubblewrapLauncher) Name() string { return "bubblewrap" }

// Check tries bwrap once: it must be installed and able to make namespaces,
// and to connect jails when egress is allowed.
func (l *BubblewrapLauncher) Check(ctx context.Context) error {
	return bubblewrap.Available(ctx, l.Bwrap, l.Network)
}

// Owner is the user the jail runs commands as.
func (l *BubblewrapLauncher) Owner() (uid, gid int) { return l.jail(Job{}).User() }

// Run runs the job's command as `/bin/bash -lc command` in the jail.
func (l *BubblewrapLauncher) Run(ctx context.Context, job Job, stdout, stderr io.Writer) (Outcome, error) {
	res, err := l.jail(job).Run(ctx, "exec /bin/bash -lc "+shellQuote(job.Command), job.Timeout, stdout, stderr)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{ExitCode: res.ExitCode, TimedOut: res.TimedOut, Duration: res.Duration}, nil
}

func (l *BubblewrapLauncher) jail(job Job) bubblewrap.Jail {
	return bubblewrap.Jail{
		Bwrap: l.Bwrap, Root: job.Workspace, WorkDir: WorkDir, Network: job.Network,
		MemoryMB: l.MemoryMB, MaxProcesses: l.MaxProcesses, MaxFileMB: l.MaxFileMB,
	}
}

// shellQuote makes s one word for sh, whatever it holds.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
