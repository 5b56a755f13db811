package local

import (
	"context"
	"errors"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/hostterm"
)

// errTerminalClosed ends the shell of a terminal being closed.
var errTerminalClosed = errors.New("the terminal was closed")

// OpenTerminal starts an interactive shell on a pseudo-terminal in a jail
// of its own on the instance's folder, with the same limits, network rules
// and disk as its commands, and counted among them until it ends.
func (c *client) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	const op = "terminal"
	if _, err := c.folder(op, inst); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The shell outlives ctx: Close or the instance's destruction ends it.
	shell, stop := context.WithCancelCause(context.Background())
	untrack, err := c.track(op, inst.ID, stop)
	if err != nil {
		stop(nil)
		return nil, err
	}
	jail, done, err := c.instanceJail(op, inst)
	if err != nil {
		untrack()
		stop(nil)
		return nil, err
	}
	term, tty, err := hostterm.Open(size, func() { stop(errTerminalClosed) })
	if err != nil {
		done()
		untrack()
		stop(nil)
		return nil, provider.Errorf(provider.ErrFailed, providerName, op, "cannot make a pseudo-terminal: %v", err)
	}
	go func() {
		defer untrack()
		defer done()
		res, err := jail.RunTerminal(shell, bubblewrap.InteractiveShell, tty)
		_ = tty.Close()
		if err != nil && errors.Is(context.Cause(shell), errTerminalClosed) {
			err = nil // closed, as asked
		}
		if err != nil {
			err = terminalError(err)
		}
		term.Ended(res.ExitCode, err)
	}()
	return term, nil
}

// terminalError words why a terminal's shell did not run to its end.
func terminalError(err error) error {
	if errors.Is(err, errDestroyed) {
		return provider.Errorf(provider.ErrGone, providerName, "terminal", "%v", errDestroyed)
	}
	return provider.Errorf(provider.ErrFailed, providerName, "terminal", "%v", err)
}

var _ provider.TerminalOpener = (*client)(nil)
