package agentsandbox

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/auxilia/sandboxes/pkg/provider"
)

var _ provider.TerminalOpener = (*Client)(nil)

// loginShell is an interactive login bash, or sh where the image has no bash.
const loginShell = `if command -v bash >/dev/null 2>&1; then exec bash -i -l; fi; exec sh -i -l`

// OpenTerminal starts a shell on a pty of sandboxd's (Start with a PTY:
// its output comes as stdout events), in the working folder; keystrokes
// go by WriteStdin, sizes by ResizeTTY.
func (c *Client) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	const op = "open terminal"
	if size.Cols == 0 || size.Rows == 0 {
		size = provider.DefaultTermSize
	}
	// The stream outlives the opening: ctx bounds only the start.
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	proc := processConfig{Command: []string{"sh", "-c", loginShell}, Cwd: inst.WorkDir,
		Env: map[string]string{"TERM": "xterm-256color"}}
	type opened struct {
		stream *processStream
		pc     *podConn
		first  startEvent
		err    error
	}
	done := make(chan opened, 1)
	go func() {
		stream, pc, err := c.start(streamCtx, op, inst, startRequest(proc, size.Cols, size.Rows))
		o := opened{stream: stream, pc: pc, err: err}
		if err == nil {
			// The first event is the init, which names the process.
			o.first, o.err = stream.next(streamCtx)
		}
		done <- o
	}()
	var o opened
	select {
	case o = <-done:
	case <-ctx.Done():
		cancel()
		<-done
		return nil, ctx.Err()
	}
	if o.err == nil && !o.first.Init {
		o.err = failure(provider.ErrFailed, op, "sandboxd did not say the shell started")
	}
	if o.err != nil {
		cancel()
		if errors.Is(o.err, io.EOF) {
			o.err = failure(provider.ErrFailed, op, "the shell's stream ended at once")
		}
		return nil, o.err
	}
	t := &terminal{stream: o.stream, pc: o.pc, pid: o.first.PID, ctx: streamCtx, cancel: cancel}
	t.Next = t.next
	return t, nil
}

// terminal is a shell on one of sandboxd's ptys.
type terminal struct {
	provider.PTYOutput
	stream *processStream
	pc     *podConn
	pid    int32
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
}

// next reads the stream's next event: the pty's output (as stdout), or
// the shell's exit.
func (t *terminal) next() (provider.PTYEvent, error) {
	ev, err := t.stream.next(t.ctx)
	switch {
	case err != nil:
		return provider.PTYEvent{}, err
	case ev.Exited:
		return provider.PTYEvent{Ended: true, Exited: true, ExitCode: int(ev.ExitCode)}, nil
	}
	return provider.PTYEvent{Output: append(ev.Stdout, ev.Stderr...)}, nil
}

func (t *terminal) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if err := unary(t.ctx, "terminal input", t.pc, methodWriteStdin, writeStdin(t.pid, p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *terminal) Resize(ctx context.Context, size provider.TermSize) error {
	return unary(ctx, "resize terminal", t.pc, methodResizeTTY, resizeTTY(t.pid, size.Cols, size.Rows))
}

// Close kills the shell's process group and ends the stream.
func (t *terminal) Close() error {
	t.mu.Lock()
	closed := t.closed
	t.closed = true
	t.mu.Unlock()
	if closed {
		return nil
	}
	_ = signalGroup("close terminal", t.pc, t.pid, signalKill)
	t.cancel()
	return nil
}
