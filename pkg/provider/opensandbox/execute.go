package opensandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// timeoutGrace is how long past a command's timeout the client waits for
// execd to report the kill itself, with the output flushed before it.
const timeoutGrace = 2 * time.Second

// interruptTimeout bounds the request that stops a command we gave up on.
const interruptTimeout = 5 * time.Second

// errOwnTimeout ends a command stream that outlived the command's timeout.
var errOwnTimeout = errors.New("command timeout")

type commandRequest struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	Timeout int64  `json:"timeout,omitempty"` // milliseconds
}

// Execute runs the command through execd and reads its event stream,
// returning at the completion event rather than when execd closes the
// stream (it holds it open about a second longer).
func (c *client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	const op = "execute"
	t, err := target(inst, op)
	if err != nil {
		return provider.ExecResult{}, err
	}
	if req.Timeout <= 0 {
		req.Timeout = c.cfg.CommandTimeout()
	}
	r := c.execd(t, op, "POST", "/command", nil)
	r.Body, r.ContentType = jsonBody(commandRequest{Command: req.Command, Cwd: inst.WorkDir, Timeout: req.Timeout.Milliseconds()})

	start := time.Now()
	streamCtx, cancel := context.WithTimeoutCause(ctx, req.Timeout+timeoutGrace, errOwnTimeout)
	defer cancel()
	out := provider.NewOutput(req)
	body, err := c.send(streamCtx, r)
	if err == nil {
		defer body.Close()
		var end ending
		end, err = readCommand(body, out)
		if err == nil {
			took := time.Since(start)
			return out.Result(end.code, end.signalled && took >= req.Timeout, req.Timeout, took), nil
		}
		if end.session != "" {
			// The caller gave up, or the stream broke: execd runs the command
			// on regardless, so it is stopped rather than left running.
			c.interrupt(ctx, t, end.session)
		}
	}
	if errors.Is(context.Cause(streamCtx), errOwnTimeout) {
		return out.Result(provider.TimeoutExitCode, true, req.Timeout, time.Since(start)), nil
	}
	if ctx.Err() != nil {
		return provider.ExecResult{}, fmt.Errorf("%s %s: %w", providerName, op, context.Cause(ctx))
	}
	return provider.ExecResult{}, err
}

// ending is how a command's stream ended.
type ending struct {
	session   string // execd's id for the command
	code      int
	signalled bool // a signal ended the command (execd's own timeout kills with SIGKILL)
}

// readCommand relays the stream's output to out until the command's
// completion event.
func readCommand(body io.Reader, out *provider.Output) (ending, error) {
	var end ending
	events := NewEventReader(body)
	for {
		ev, err := events.Next()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return end, failure(provider.ErrFailed, "execute", "the command's event stream ended before the command did")
			}
			if errors.Is(err, ErrMalformedEvent) {
				return end, failure(provider.ErrFailed, "execute", "%s", err)
			}
			return end, err // the stream words a failed read
		}
		switch ev.Type {
		case EventTypeInit:
			end.session = ev.Text
		case EventTypeStdout, EventTypeStderr:
			out.Write(ev.Type, asLine(ev.Text))
		case EventTypeComplete:
			return end, nil
		case EventTypeError:
			end.code, end.signalled, err = errorExitCode(ev.Error)
			return end, err
		}
	}
}

// asLine restores the line break execd strips from each line of output
// (a blank line comes as "\n" already). Output whose last line has no line
// break gains one: the stream does not say which lines had one.
func asLine(text string) string {
	if strings.HasSuffix(text, "\n") {
		return text
	}
	return text + "\n"
}

// errorExitCode reads an error event: the exit code of a command that ran
// ("-1" when a signal ended it), or the reason it could not start.
func errorExitCode(e *EventError) (code int, signalled bool, err error) {
	if e == nil {
		return 0, false, failure(provider.ErrFailed, "execute", "an error event without its error")
	}
	code, err = strconv.Atoi(strings.TrimSpace(e.Value))
	if err != nil {
		return 0, false, failure(provider.ErrFailed, "execute", "%s: %s", e.Name, e.Value)
	}
	if code < 0 {
		return signalExitCode(e.Traceback), true, nil
	}
	return code, false, nil
}

// signals maps the names Go gives Linux signals, as execd reports them, to
// their numbers (Linux's, wherever this client runs).
var signals = map[string]int{
	"hangup": 1, "interrupt": 2, "quit": 3, "illegal instruction": 4, "trace/breakpoint trap": 5,
	"aborted": 6, "bus error": 7, "floating point exception": 8, "killed": 9,
	"user defined signal 1": 10, "segmentation fault": 11, "user defined signal 2": 12,
	"broken pipe": 13, "alarm clock": 14, "terminated": 15,
	"CPU time limit exceeded": 24, "file size limit exceeded": 25, "bad system call": 31,
}

// signalExitCode is a shell's exit code for a command ended by the signal
// the traceback names ("signal: killed" → 137); a signal it does not name
// is taken for SIGKILL, the one execd itself sends.
func signalExitCode(traceback []string) int {
	for _, line := range traceback {
		name, ok := strings.CutPrefix(strings.TrimSpace(line), "signal: ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " (core dumped)")
		if n, ok := signals[name]; ok {
			return 128 + n
		}
	}
	return 128 + 9
}

// interrupt asks execd to stop a command; best effort, briefly.
func (c *client) interrupt(ctx context.Context, t execdTarget, session string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), interruptTimeout)
	defer cancel()
	_ = c.do(ctx, c.execd(t, "interrupt", "DELETE", "/command", url.Values{"id": {session}}), nil)
}
