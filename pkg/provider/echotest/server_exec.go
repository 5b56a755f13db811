package echotest

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// exec runs the command (in bash, or sh where there is none) in the
// instance's jail and streams its output, one event a line, then how it
// ended.
func (s *Server) exec(w http.ResponseWriter, r *http.Request, b *box) {
	var req execRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.TimeoutMS <= 0 {
		refuse(w, http.StatusBadRequest, codeBadRequest, "an exec takes a command and a positive timeout_ms")
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	events := &eventWriter{w: w, enc: json.NewEncoder(w)}
	jail := bubblewrap.Jail{Root: b.root, WorkDir: b.WorkDir}
	res, err := jail.Run(r.Context(), bubblewrap.InBash(req.Command), time.Duration(req.TimeoutMS)*time.Millisecond,
		events.stream("stdout"), events.stream("stderr"))
	if err != nil && !res.TimedOut {
		if r.Context().Err() != nil {
			return // the client has left
		}
		_, _ = events.stream("stderr").Write([]byte(err.Error()))
		res.ExitCode = -1
	}
	events.send(execEvent{Exit: &exit{Code: res.ExitCode, TimedOut: res.TimedOut, DurationMS: res.Duration.Milliseconds()}})
}

// eventWriter sends the events of one command, from both its streams.
type eventWriter struct {
	mu  sync.Mutex
	w   http.ResponseWriter
	enc *json.Encoder
}

func (e *eventWriter) send(ev execEvent) {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.enc.Encode(ev)
	_ = http.NewResponseController(e.w).Flush()
}

// stream is a writer of one of the command's streams.
func (e *eventWriter) stream(name string) streamWriter { return streamWriter{e, name} }

type streamWriter struct {
	events *eventWriter
	name   string
}

func (sw streamWriter) Write(p []byte) (int, error) {
	sw.events.send(execEvent{Stream: sw.name, Text: string(p)})
	return len(p), nil
}
