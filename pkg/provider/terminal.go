package provider

import (
	"context"
	"io"
)

// TermSize is a terminal's size in character cells.
type TermSize struct {
	Cols uint16
	Rows uint16
}

// DefaultTermSize is the size a terminal opens with when none is given.
var DefaultTermSize = TermSize{Cols: 80, Rows: 24}

// TerminalOpener is a client whose instances can hold an interactive shell
// on a pseudo-terminal. A provider whose clients are TerminalOpeners
// declares the Terminal capability.
type TerminalOpener interface {
	// OpenTerminal starts a shell on a new pseudo-terminal in inst.WorkDir,
	// with the same limits as the instance's commands. The shell lives until
	// it exits or the terminal is closed; ctx bounds only the opening.
	OpenTerminal(ctx context.Context, inst Instance, size TermSize) (PTY, error)
}

// PTY is one shell on a pseudo-terminal, as a terminal reaches it. Read gives what the terminal
// shows (the pty merges stdout and stderr) and returns io.EOF once the shell
// has exited; Write sends keystrokes, control characters included (Ctrl-C is
// the byte 0x03, delivered by the pty as SIGINT to the foreground program).
// Read and Write may be called from two goroutines at once; Resize and
// Close from any goroutine.
type PTY interface {
	io.ReadWriter
	// Resize tells the pty its new size (the shell sees SIGWINCH).
	Resize(ctx context.Context, size TermSize) error
	// ExitCode is the shell's exit status once Read has returned io.EOF;
	// -1 when the shell was killed or the provider did not say.
	ExitCode() int
	// Close ends the shell, killing it if it still runs, and releases the
	// connection. Closing twice is not an error.
	Close() error
}
