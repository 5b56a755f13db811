package local

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Execute runs the command in a jail of its own on the instance's folder.
func (c *client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	const op = "execute"
	dir, err := c.folder(op, inst)
	if err != nil {
		return provider.ExecResult{}, err
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	untrack, ok := c.track(inst.ID, stop)
	if !ok {
		return provider.ExecResult{}, gone(op, inst.ID)
	}
	defer untrack()
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return provider.ExecResult{}, gone(op, inst.ID)
	}

	timeout := c.timeout(req.Timeout)
	out := provider.NewOutput(req)
	stdout, stderr := &stream{out: out, name: "stdout"}, &stream{out: out, name: "stderr"}
	res, err := c.jail(dir).Run(ctx, req.Command, timeout, stdout, stderr)
	stdout.flush()
	stderr.flush()
	if err != nil {
		return provider.ExecResult{}, runError(err)
	}
	return out.Result(res.ExitCode, res.TimedOut, timeout, res.Duration), nil
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
