package local

import (
	"context"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Execute runs the command in a jail of its own on the instance's folder,
// with bash where the host has it, else sh.
func (c *client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	const op = "execute"
	if _, err := c.folder(op, inst); err != nil {
		return provider.ExecResult{}, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	untrack, err := c.track(op, inst.ID, stop)
	if err != nil {
		return provider.ExecResult{}, err
	}
	defer untrack()
	jail, done, err := c.instanceJail(op, inst)
	if err != nil {
		return provider.ExecResult{}, err
	}
	defer done()
	if req.Install {
		jail = forInstall(jail, c.index)
	}

	timeout := c.timeout(req.Timeout)
	out := provider.NewOutput(req)
	stdout, stderr := &stream{out: out, name: "stdout"}, &stream{out: out, name: "stderr"}
	res, err := jail.Run(ctx, bubblewrap.InBash(req.Command), timeout, stdout, stderr)
	stdout.flush()
	stderr.flush()
	if err != nil {
		return provider.ExecResult{}, runError(err)
	}
	return out.Result(res.ExitCode, res.TimedOut, timeout, res.Duration), nil
}

// instanceJail is where a command of inst runs: on its folder (its disk
// mounted), as its user, bounded with every other command of the instance
// (see isolator), until done is called. It waits while the instance is
// held still (see still).
func (c *client) instanceJail(op string, inst provider.Instance) (jail runner, done func(), err error) {
	if err := c.config.refused(op); err != nil {
		return nil, nil, err
	}
	user, dir, unmount, err := c.door(op, inst)
	if err != nil {
		return nil, nil, err
	}
	hold := c.stillness(inst.ID)
	hold.RLock()
	defer hold.RUnlock()
	// A command never joins a frozen group: it resumes a paused instance.
	if err := c.resume(op, inst.ID); err != nil {
		unmount()
		return nil, nil, err
	}
	jail, leave, err := c.iso.runner(op, inst, user, dir)
	if err != nil {
		unmount()
		return nil, nil, err
	}
	return jail, func() { leave(); unmount() }, nil
}

// timeout is the request's timeout, within the sandbox's longest.
func (c *client) timeout(requested time.Duration) time.Duration {
	longest := c.config.CommandTimeout()
	if requested <= 0 || (longest > 0 && requested > longest) {
		return longest
	}
	return requested
}

func runError(err error) error {
	const op = "execute"
	switch {
	case errors.Is(err, errDestroyed):
		return provider.Errorf(provider.ErrGone, providerName, op, "%v", errDestroyed)
	case errors.Is(err, context.Canceled):
		return err
	case errors.Is(err, context.DeadlineExceeded):
		return provider.Errorf(provider.ErrTimeout, providerName, op, "%v", err)
	}
	return provider.Errorf(provider.ErrFailed, providerName, op, "%v", err)
}
