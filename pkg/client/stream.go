package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/auxilia/sandboxes/pkg/client/sse"
)

// Event is one event of an execute stream: output (Name stdout or stderr,
// with Output) or the command's end (exit, with Exit).
type Event struct {
	Name   string
	Output StreamOutput
	Exit   StreamExit
}

// Stream runs a command in a run's sandbox and yields its output as it
// arrives, then its exit. A refusal, or a failure once the stream has begun
// (the stream's `error` event), is yielded as an *Error and ends it; a
// stream that ends before the exit (a connection cut, a proxy's timeout)
// yields an error wrapping io.ErrUnexpectedEOF.
func Stream(ctx context.Context, api *API, runID openapi_types.UUID, params *ExecuteParams, body ExecuteRequest) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		accept := func(_ context.Context, req *http.Request) error {
			req.Header.Set("Accept", "text/event-stream")
			return nil
		}
		res, err := api.ClientInterface.Execute(ctx, runID, params, body, accept)
		if err != nil {
			yield(Event{}, err)
			return
		}
		defer res.Body.Close()
		if res.StatusCode >= 300 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			var raw bytes.Buffer
			_, _ = raw.ReadFrom(res.Body)
			if err := problemOf(res, raw.Bytes()); err != nil {
				yield(Event{}, err)
				return
			}
			yield(Event{}, fmt.Errorf("client: the server answered %s, not an event stream", res.Header.Get("Content-Type")))
			return
		}
		events := sse.NewReader(res.Body, sse.Options{Last: "exit"})
		for {
			ev, err := events.Next()
			if err != nil { // the stream broke off, or ended before the command's exit
				yield(Event{}, fmt.Errorf("client: execute stream: %w", err))
				return
			}
			e := Event{Name: ev.Name}
			switch ev.Name {
			case "stdout", "stderr":
				err = json.Unmarshal(ev.Data, &e.Output)
			case "exit":
				err = json.Unmarshal(ev.Data, &e.Exit)
			case "error":
				p := &Error{Status: res.StatusCode}
				if err = json.Unmarshal(ev.Data, &p.Problem); err == nil {
					p.Status = p.Problem.Status
					err = p
				}
				yield(Event{}, err)
				return
			default:
				continue // an event this client does not know yet
			}
			if !yield(e, err) || err != nil || ev.Name == "exit" {
				return
			}
		}
	}
}
