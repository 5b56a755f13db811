package echotest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// answerGrace is how long past a command's timeout the client waits for
// the server to say how it ended.
const answerGrace = 30 * time.Second

// Execute runs the command; its output arrives as the server streams it.
func (c *client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	const op = "execute"
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.CommandTimeout()
	}
	k := c.call(op, http.MethodPost, instancePath(inst.ID, "/exec"), nil, execRequest{Command: req.Command, TimeoutMS: timeout.Milliseconds()})
	k.Accept, k.Stream, k.Timeout = "application/x-ndjson", true, timeout+answerGrace
	a, err := c.caller.Send(ctx, k)
	if err != nil {
		return provider.ExecResult{}, err
	}
	defer a.Stream.Close()
	out := provider.NewOutput(req)
	events := json.NewDecoder(a.Stream)
	for {
		var ev execEvent
		if err := events.Decode(&ev); err != nil {
			return provider.ExecResult{}, brokenEvents(op, err)
		}
		if ev.Exit != nil {
			took := time.Duration(ev.Exit.DurationMS) * time.Millisecond
			return out.Result(ev.Exit.Code, ev.Exit.TimedOut, timeout, took), nil
		}
		out.Write(ev.Stream, ev.Text)
	}
}

// brokenEvents words a stream of events that ended before the command did.
func brokenEvents(op string, err error) error {
	var pe *provider.Error
	switch {
	case errors.As(err, &pe):
		return err // the stream worded a failed read
	case errors.Is(err, io.EOF):
		return provider.Errorf(provider.ErrFailed, providerName, op, "the server ended the stream before the command finished")
	}
	return provider.Errorf(provider.ErrFailed, providerName, op, "unreadable event: %v", err)
}
