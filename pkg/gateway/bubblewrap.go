package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// BubblewrapLauncher runs each command in a fresh bubblewrap jail with the
// sandbox's workspace mounted read-write at /workspace and the host's
// system read-only. The commands of one sandbox share a cgroup, where the
// gateway can make cgroups: on Cloud Run, whose disk is memory, that also
// bounds what a sandbox writes.
type BubblewrapLauncher struct {
	Bwrap        string // "" finds bwrap on PATH
	MemoryMB     int    // per sandbox (per process without cgroups); 0 = no limit
	MaxProcesses int    // per sandbox (per command without cgroups); 0 = no limit
	MaxFileMB    int    // largest file a command may write; 0 = no limit
	Network      bool   // sandboxes may be given network (egress is allowed)

	cgroups *bubblewrap.Cgroups // nil: the host has none the gateway may write
}

// NewBubblewrapLauncher returns a launcher with the configuration's limits.
func NewBubblewrapLauncher(cfg Config) *BubblewrapLauncher {
	l := &BubblewrapLauncher{Bwrap: cfg.BwrapPath, MemoryMB: cfg.SandboxMemoryMB, MaxProcesses: cfg.SandboxMaxProcesses,
		MaxFileMB: cfg.SandboxMaxFileMB, Network: cfg.AllowEgress}
	if cgroups, err := bubblewrap.OpenCgroups(cgroupScope(cfg.DataDir)); err == nil {
		_ = cgroups.Sweep() // what a gateway that stopped left behind
		l.cgroups = cgroups
	}
	return l
}

func (l *BubblewrapLauncher) Name() string { return "bubblewrap" }

// Check tries bwrap once: it must be installed and able to make namespaces,
// and to connect jails when egress is allowed.
func (l *BubblewrapLauncher) Check(ctx context.Context) error {
	return bubblewrap.Available(ctx, l.Bwrap, l.Network)
}

// Run runs the job's command as `/bin/bash -lc command` in the jail.
func (l *BubblewrapLauncher) Run(ctx context.Context, job Job, stdout, stderr io.Writer) (Outcome, error) {
	group, leave, err := l.join(job)
	if err != nil {
		return Outcome{}, err
	}
	defer leave()
	res, err := l.jail(job, group).Run(ctx, "exec /bin/bash -lc "+shell.Quote(job.Command), job.Timeout, stdout, stderr)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{ExitCode: res.ExitCode, TimedOut: res.TimedOut, Duration: res.Duration}, nil
}

// RunTerminal runs an interactive shell in the jail a command of the job
// would have, on tty, with no timeout.
func (l *BubblewrapLauncher) RunTerminal(ctx context.Context, job Job, tty *os.File) (Outcome, error) {
	group, leave, err := l.join(job)
	if err != nil {
		return Outcome{}, err
	}
	defer leave()
	res, err := l.jail(job, group).RunTerminal(ctx, bubblewrap.InteractiveShell, tty)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{ExitCode: res.ExitCode, Duration: res.Duration}, nil
}

// join returns the cgroup the sandbox's commands share, and a function to
// call once the command is over; no cgroup where there are none.
func (l *BubblewrapLauncher) join(job Job) (*bubblewrap.Cgroup, func(), error) {
	if l.cgroups == nil {
		return nil, func() {}, nil
	}
	limits := bubblewrap.CgroupLimits{MemoryMB: within(job.Resources.MemoryMB, l.MemoryMB), MaxProcesses: l.MaxProcesses}
	group, leave, err := l.cgroups.Join(job.Sandbox, limits)
	if err != nil {
		return nil, nil, fmt.Errorf("sandbox %s: %w", job.Sandbox, err)
	}
	return group, leave, nil
}

func (l *BubblewrapLauncher) jail(job Job, group *bubblewrap.Cgroup) bubblewrap.Jail {
	return bubblewrap.Jail{
		UID: job.User.UID, GID: job.User.GID,
		Bwrap: l.Bwrap, Root: job.Workspace, WorkDir: WorkDir, Network: job.Network, Egress: job.Egress,
		MemoryMB: within(job.Resources.MemoryMB, l.MemoryMB), MaxProcesses: l.MaxProcesses,
		MaxFileMB: within(job.Resources.DiskMB, l.MaxFileMB), Cgroup: group,
	}
}

// within is what a sandbox asked for (0: nothing) bounded by the
// launcher's own bound (0: none).
func within(asked, bound int) int {
	if asked == 0 || (bound > 0 && asked > bound) {
		return bound
	}
	return asked
}

// cgroupScope names the cgroup folder of the sandboxes in one data folder:
// a gateway (or a test) with another data folder has its own.
func cgroupScope(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return "auxilia-gateway-" + hex.EncodeToString(sum[:8])
}
