package cloudrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/client/sse"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// The gateway's bounds on a command.
const (
	maxTimeoutSeconds = 3600
	maxStreamOutput   = 2 << 20
	// answerGrace is how long past a command's timeout the client waits for the gateway's answer.
	answerGrace = time.Minute
)

// Execute runs the command through the gateway's event stream, so output
// arrives as it is written and stdout and stderr keep their order.
func (c *client) Execute(ctx context.Context, inst provider.Instance, req provider.ExecRequest) (provider.ExecResult, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.cfg.CommandTimeout()
	}
	seconds := min(max(int(math.Ceil(timeout.Seconds())), 1), maxTimeoutSeconds)
	out := provider.NewOutput(req)
	limit := req.OutputLimit
	if limit <= 0 {
		limit = provider.DefaultOutputLimit
	}
	// One byte past our own limit is enough for the collector to see the cut; the rest need not travel.
	sent := min(limit+1, maxStreamOutput)
	body, ct := jsonBody(execRequest{Command: req.Command, Timeout: &seconds, OutputLimit: &sent})

	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second+answerGrace)
	defer cancel()
	events, err := c.send(ctx, call{op: "execute", method: http.MethodPost, path: sandboxPath(inst.ID, "/exec"),
		body: body, contentType: ct, accept: "text/event-stream"})
	if err != nil {
		return provider.ExecResult{}, err
	}
	defer events.Close()
	exit, err := readEvents(ctx, events, out)
	if err != nil {
		return provider.ExecResult{}, err
	}
	res := out.Result(exit.ExitCode, exit.TimedOut, time.Duration(seconds)*time.Second, time.Duration(exit.DurationMS)*time.Millisecond)
	res.Truncated = res.Truncated || exit.StdoutTruncated || exit.StderrTruncated
	return res, nil
}

// readEvents relays stdout and stderr events to out and returns the exit event.
func readEvents(ctx context.Context, events io.Reader, out *provider.Output) (exitEvent, error) {
	stream := sse.NewReader(events, sse.Options{Last: "exit"})
	for {
		ev, err := stream.Next()
		var pe *provider.Error
		switch {
		case errors.As(err, &pe):
			return exitEvent{}, err // the stream worded a failed read
		case errors.Is(err, sse.ErrCut) || errors.Is(err, io.EOF):
			return exitEvent{}, provider.Errorf(provider.ErrFailed, providerName, "execute", "the gateway ended the stream before the command finished")
		case err != nil:
			return exitEvent{}, provider.RoundTripError(ctx, providerName, "execute", err)
		}
		done, exit, err := handleEvent(ev.Name, string(ev.Data), out)
		if done || err != nil {
			return exit, err
		}
	}
}

func handleEvent(event, data string, out *provider.Output) (done bool, exit exitEvent, err error) {
	switch event {
	case "stdout", "stderr":
		var chunk struct {
			Text string `json:"text"`
		}
		if json.Unmarshal([]byte(data), &chunk) == nil {
			out.Write(event, chunk.Text)
		}
		return false, exit, nil
	case "exit":
		if err := json.Unmarshal([]byte(data), &exit); err != nil {
			return true, exit, provider.Errorf(provider.ErrFailed, providerName, "execute", "unreadable exit event: %v", err)
		}
		return true, exit, nil
	case "error":
		var p wire.Problem
		_ = json.Unmarshal([]byte(data), &p)
		return true, exit, problemError("execute", p)
	}
	return false, exit, nil // an event this client does not know yet
}
