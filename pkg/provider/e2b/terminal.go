package e2b

import (
	"context"
	"sync"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// OpenTerminal starts a login bash on a pty of envd's (process.Process/Start
// with pty), in the working folder.
func (c *Client) OpenTerminal(ctx context.Context, inst provider.Instance, size provider.TermSize) (provider.PTY, error) {
	const op = "open terminal"
	e := c.envdOf(inst)
	if size.Cols == 0 || size.Rows == 0 {
		size = provider.DefaultTermSize
	}
	streamCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	req := startRequest{Process: processConfig{Cmd: "bash", Args: []string{"-i", "-l"}, Cwd: inst.WorkDir,
		Envs: map[string]string{"TERM": "xterm-256color"}}, Pty: &ptyConfig{Size: ptySize{Cols: size.Cols, Rows: size.Rows}}}
	type opened struct {
		msgs *messages
		err  error
	}
	done := make(chan opened, 1)
	go func() {
		msgs, err := e.start(streamCtx, op, req)
		done <- opened{msgs, err}
	}()
	var o opened
	select {
	case o = <-done:
	case <-ctx.Done():
		cancel()
		o = <-done
		if o.err == nil {
			_ = o.msgs.Close()
		}
		return nil, ctx.Err()
	}
	if o.err != nil {
		cancel()
		return nil, o.err
	}
	t := &terminal{e: e, msgs: o.msgs, cancel: cancel}
	t.Next = t.next
	// The first event is the start, which names the process.
	raw, err := o.msgs.Next()
	if err == nil {
		var ev processEvent
		if ev, err = readEvent(op, raw); err == nil && ev.Event.Start != nil {
			t.pid = ev.Event.Start.Pid
		}
	}
	if err != nil || t.pid == 0 {
		_ = t.Close()
		if err == nil {
			err = failure(provider.ErrFailed, op, "envd did not say the shell started")
		}
		return nil, err
	}
	return t, nil
}

// terminal is a shell on one of envd's ptys: its output from the Start
// stream, its input by SendInput, its size by Update.
type terminal struct {
	provider.PTYOutput
	e      envd
	msgs   *messages
	cancel context.CancelFunc
	pid    uint32

	mu     sync.Mutex
	closed bool
}

// next reads the Start stream's next event: pty output, or the end.
func (t *terminal) next() (provider.PTYEvent, error) {
	for {
		raw, err := t.msgs.Next()
		if err != nil {
			return provider.PTYEvent{}, err
		}
		ev, err := readEvent("terminal", raw)
		switch e := ev.Event; {
		case err != nil:
			return provider.PTYEvent{}, err
		case e.Data != nil:
			return provider.PTYEvent{Output: e.Data.Pty}, nil
		case e.End != nil:
			return provider.PTYEvent{Ended: true, Exited: e.End.Exited, ExitCode: e.End.ExitCode}, nil
		}
	}
}

func (t *terminal) Write(p []byte) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	err := t.e.unary(ctx, "terminal input", "process.Process/SendInput",
		map[string]any{"process": processSelector{Pid: t.pid}, "input": map[string][]byte{"pty": p}}, &struct{}{})
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

func (t *terminal) Resize(ctx context.Context, size provider.TermSize) error {
	return t.e.unary(ctx, "resize terminal", "process.Process/Update",
		map[string]any{"process": processSelector{Pid: t.pid}, "pty": ptyConfig{Size: ptySize{Cols: size.Cols, Rows: size.Rows}}}, &struct{}{})
}

// Close kills the shell and its session, and ends the stream.
func (t *terminal) Close() error {
	t.mu.Lock()
	closed := t.closed
	t.closed = true
	t.mu.Unlock()
	if closed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	_ = t.e.kill(ctx, "close terminal", t.pid)
	t.cancel()
	return t.msgs.Close()
}
