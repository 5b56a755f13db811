package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"

	openapi_types "github.com/oapi-codegen/runtime/types"
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
// (the stream's `error` event), is yielded as an *Error and ends it.
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
		for name, data := range events(res) {
			if name == "" { // the stream broke off
				yield(Event{}, fmt.Errorf("client: execute stream: %s", data))
				return
			}
			e := Event{Name: name}
			var err error
			switch name {
			case "stdout", "stderr":
				err = json.Unmarshal(data, &e.Output)
			case "exit":
				err = json.Unmarshal(data, &e.Exit)
			case "error":
				p := &Error{Status: res.StatusCode}
				if err = json.Unmarshal(data, &p.Problem); err == nil {
					p.Status = p.Problem.Status
					err = p
				}
				yield(Event{}, err)
				return
			default:
				continue // an event this client does not know yet
			}
			if !yield(e, err) || err != nil || name == "exit" {
				return
			}
		}
	}
}

// events reads server-sent events (each `event:` and `data:` lines, then
// a blank line; comments skipped). A read error is yielded with no name.
func events(res *http.Response) iter.Seq2[string, []byte] {
	return func(yield func(string, []byte) bool) {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var name string
		var data []byte
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if name != "" && !yield(name, data) {
					return
				}
				name, data = "", nil
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "event:"):
				name = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
			}
		}
		if err := sc.Err(); err != nil {
			yield("", []byte(err.Error()))
		}
	}
}
