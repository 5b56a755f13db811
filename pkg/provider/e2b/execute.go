package e2b

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Execute runs a command in the instance's working folder: bash, in a
// session of its own (so that a timeout or a cancel ends its jobs too),
// under a wrapper that says on both streams when the command's shell has
// exited. envd reports a process's end only once nothing holds its output
// (Handler.Wait in packages/envd/internal/services/process/handler), so a
// job left in the background would hold the command to its timeout: the
// wrapper's marks end it instead.
func (c *Client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	const op = "execute"
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.CommandTimeout()
		req.Timeout = timeout
	}
	e := c.envdOf(inst)
	mark := newMark()
	no := false
	start := startRequest{Process: processConfig{Cmd: "setsid", Args: []string{"bash", "-c", wrapper(mark), "auxilia", req.Command}, Cwd: inst.WorkDir}, Stdin: &no}
	runCtx, cancel := context.WithTimeoutCause(ctx, timeout, errOwnTimeout)
	defer cancel()
	began := time.Now()
	msgs, err := e.start(runCtx, op, start)
	if err != nil {
		if errors.Is(context.Cause(runCtx), errOwnTimeout) {
			return provider.NewOutput(req).Result(provider.TimeoutExitCode, true, timeout, time.Since(began)), nil
		}
		return provider.ExecResult{}, err
	}
	defer msgs.Close()
	out := provider.NewOutput(req)
	end := &marks{mark: []byte(mark), out: out}
	pid, code, err := readCommand(op, msgs, end)
	took := time.Since(began)
	switch {
	case err == nil:
		return out.Result(code, false, timeout, took), nil
	case errors.Is(context.Cause(runCtx), errOwnTimeout):
		end.flush()
		e.killGroup(op, pid)
		return out.Result(provider.TimeoutExitCode, true, timeout, took), nil
	case ctx.Err() != nil:
		e.killGroup(op, pid)
		return provider.ExecResult{}, fmt.Errorf("%s %s: %w", providerName, op, context.Cause(ctx))
	}
	e.killGroup(op, pid)
	return provider.ExecResult{}, err
}

var errOwnTimeout = errors.New("the command's timeout")

// readCommand relays the command's output until the wrapper's marks (or
// the process's end, when the wrapper did not live to write them).
func readCommand(op string, msgs *messages, end *marks) (pid uint32, code int, err error) {
	for {
		raw, err := msgs.Next()
		if errors.Is(err, io.EOF) {
			return pid, 0, failure(provider.ErrFailed, op, "the command's stream ended before the command did")
		}
		if err != nil {
			return pid, 0, err
		}
		ev, err := readEvent(op, raw)
		if err != nil {
			return pid, 0, err
		}
		switch e := ev.Event; {
		case e.Start != nil:
			pid = e.Start.Pid
		case e.Data != nil:
			end.feed("stdout", e.Data.Stdout)
			end.feed("stderr", e.Data.Stderr)
			if end.done() {
				return pid, end.code, nil
			}
		case e.End != nil:
			end.flush()
			if e.End.Error != "" && !e.End.Exited && e.End.ExitCode <= 0 {
				return pid, 0, failure(provider.ErrFailed, op, "%s", e.End.Error)
			}
			return pid, e.End.ExitCode, nil
		}
	}
}

// wrapper runs the command ($1) in bash, then writes the mark and the
// exit status on stdout and the mark on stderr.
func wrapper(mark string) string {
	return `bash -c "$1"; s=$?; printf '` + mark + `%d\n' "$s"; printf '` + mark + `\n' >&2; exit "$s"`
}

// newMark is a mark no command's output holds by chance.
func newMark() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "\x1eauxilia-end-" + hex.EncodeToString(b) + ":"
}

// marks relays each stream's output to out, up to the wrapper's mark,
// holding back a tail that could be the start of one.
type marks struct {
	mark []byte
	out  *provider.Output
	held [2][]byte
	seen [2]bool
	code int
}

func streamIndex(stream string) int {
	if stream == "stderr" {
		return 1
	}
	return 0
}

func (m *marks) feed(stream string, data []byte) {
	i := streamIndex(stream)
	if len(data) == 0 || m.seen[i] {
		return
	}
	buf := append(m.held[i], data...)
	if at := bytes.Index(buf, m.mark); at >= 0 {
		m.out.Write(stream, string(buf[:at]))
		rest := buf[at+len(m.mark):]
		if i == 0 {
			line, _, _ := bytes.Cut(rest, []byte("\n"))
			m.code, _ = strconv.Atoi(string(line))
		}
		m.seen[i], m.held[i] = true, nil
		return
	}
	keep := heldTail(buf, m.mark)
	m.out.Write(stream, string(buf[:len(buf)-keep]))
	m.held[i] = append([]byte(nil), buf[len(buf)-keep:]...)
}

// heldTail is how much of buf's end may be the start of the mark.
func heldTail(buf, mark []byte) int {
	for n := min(len(buf), len(mark)-1); n > 0; n-- {
		if bytes.HasPrefix(mark, buf[len(buf)-n:]) {
			return n
		}
	}
	return 0
}

func (m *marks) done() bool { return m.seen[0] && m.seen[1] }

// flush relays what was held back, at a process's end without the marks.
func (m *marks) flush() {
	for i, stream := range []string{"stdout", "stderr"} {
		m.out.Write(stream, string(m.held[i]))
		m.held[i] = nil
	}
}
