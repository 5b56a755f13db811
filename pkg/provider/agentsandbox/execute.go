package agentsandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// shell runs a command line in bash where the image has it, else in sh.
const shell = `if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; fi; exec sh -c "$1"`

// Execute runs the command through sandboxd's Start stream, in the
// working folder, relaying its output as it arrives. sandboxd starts it
// in a process group of its own (Setpgid, pkg/server/process.go), so a
// timeout or a cancel kills the whole group with SendSignal; its stdin
// is closed at once. sandboxd sends the exit once the shell has exited
// and its pipes drained (at most pipeDrainGrace, 5s, for a job left in
// the background).
func (c *Client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	const op = "execute"
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.CommandTimeout()
		req.Timeout = timeout
	}
	// The timeout is a timer's cancel, not a deadline: gRPC would send a
	// deadline to sandboxd (grpc-timeout), which could end the stream a
	// moment before this side knows it was the timeout.
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(timeout, func() { cancel(errOwnTimeout) })
	defer timer.Stop()
	began := time.Now()
	timedOut := func() bool { return errors.Is(context.Cause(runCtx), errOwnTimeout) }
	proc := processConfig{Command: []string{"sh", "-c", shell, "sh", req.Command}, Cwd: inst.WorkDir}
	stream, pc, err := c.start(runCtx, op, inst, startRequest(proc, 0, 0))
	if err != nil {
		if timedOut() {
			return provider.NewOutput(req).Result(provider.TimeoutExitCode, true, timeout, time.Since(began)), nil
		}
		return provider.ExecResult{}, err
	}
	out := provider.NewOutput(req)
	var pid int32
	for {
		ev, err := stream.next(runCtx)
		switch {
		case err == nil:
		case timedOut():
			_ = signalGroup(op, pc, pid, signalKill)
			return out.Result(provider.TimeoutExitCode, true, timeout, time.Since(began)), nil
		case ctx.Err() != nil:
			_ = signalGroup(op, pc, pid, signalKill)
			return provider.ExecResult{}, fmt.Errorf("%s %s: %w", providerName, op, context.Cause(ctx))
		case errors.Is(err, io.EOF):
			return provider.ExecResult{}, failure(provider.ErrFailed, op, "the command's stream ended before the command did")
		default:
			_ = signalGroup(op, pc, pid, signalKill)
			return provider.ExecResult{}, err
		}
		switch {
		case ev.Init:
			pid = ev.PID
			_ = unary(runCtx, op, pc, methodWriteStdin, writeStdin(pid, nil))
		case ev.Exited:
			return out.Result(int(ev.ExitCode), false, timeout, time.Since(began)), nil
		default:
			out.Write("stdout", string(ev.Stdout))
			out.Write("stderr", string(ev.Stderr))
		}
	}
}

var errOwnTimeout = errors.New("the command's timeout")
