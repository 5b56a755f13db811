package gateway

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// WorkDir is where a sandbox's workspace appears and commands start.
const WorkDir = "/workspace"

// Launcher runs commands in isolated sandboxes.
type Launcher interface {
	// Name says which launcher this is, for /health and logs.
	Name() string
	// Check reports why sandboxes cannot run on this host, or nil.
	Check(ctx context.Context) error
	// Run runs ["/bin/bash","-lc",job.Command] in WorkDir with job.Workspace
	// mounted there, until it exits, job.Timeout passes or ctx ends. A
	// timeout is an outcome, not an error; errors mean the sandbox could not run.
	Run(ctx context.Context, job Job, stdout, stderr io.Writer) (Outcome, error)
}

// TerminalLauncher is a launcher that can also hold an interactive shell.
type TerminalLauncher interface {
	// RunTerminal runs an interactive shell in WorkDir with the job's
	// workspace, network and resources (its Command and Timeout unused),
	// on tty (the slave end of a pseudo-terminal: its stdin, stdout and
	// controlling terminal), until the shell exits or ctx ends.
	RunTerminal(ctx context.Context, job Job, tty *os.File) (Outcome, error)
}

// Job is one command for a launcher.
type Job struct {
	// Sandbox is the id of the sandbox the command runs for: its commands
	// share its bounds.
	Sandbox string
	// Workspace is the host folder mounted at WorkDir.
	Workspace string
	// User is the host user the command runs as: the sandbox's own (see
	// jailUsers).
	User    jailfs.User
	Command string
	Timeout time.Duration
	// Network lets the command reach the network, as far as Egress says.
	Network bool
	Egress  bubblewrap.Egress
	// Resources bound the sandbox within the launcher's own bounds.
	Resources Resources
}

// Outcome is how a command ended.
type Outcome struct {
	ExitCode int
	TimedOut bool
	Duration time.Duration
}
