package bubblewrap

import (
	"context"
	"os"
)

// InteractiveShell is a command line for RunTerminal: an interactive bash
// where the jail has it, else sh, its errors (the prompt among them) on the
// terminal too.
const InteractiveShell = `exec 2>&1; command -v bash >/dev/null 2>&1 && exec bash -i; exec sh -i`

// TerminalEnv is the terminal type a jail's terminal declares.
const TerminalEnv = "TERM=xterm-256color"

// RunTerminal runs command as Run does, without a timeout, on tty (the
// slave end of a pseudo-terminal): it is the command's stdin, stdout and
// controlling terminal, so keys such as Ctrl-C reach the program in the
// foreground. bwrap's own errors still go to Run's error.
//
// The jail then keeps the session bwrap starts in, with tty as its
// controlling terminal, instead of a new one (--new-session): that option
// keeps a jail from typing into the terminal of whoever started it
// (TIOCSTI), and here that terminal is the jail's own.
func (j Jail) RunTerminal(ctx context.Context, command string, tty *os.File) (Result, error) {
	j.tty = tty
	return j.Run(ctx, command, 0, nil, nil)
}
