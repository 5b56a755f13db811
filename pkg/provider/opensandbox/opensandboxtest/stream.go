package opensandboxtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// event is one event of execd's command stream, encoded as execd does.
type event struct {
	Type          string       `json:"type,omitempty"`
	Text          string       `json:"text,omitempty"`
	ExecutionTime int64        `json:"execution_time,omitempty"`
	Timestamp     int64        `json:"timestamp,omitempty"`
	Error         *errorOutput `json:"error,omitempty"`
}

type errorOutput struct {
	Name      string   `json:"ename"`
	Value     string   `json:"evalue"`
	Traceback []string `json:"traceback"`
}

// eventStream writes events as execd does: each a raw JSON object followed
// by a blank line, flushed at once, with the headers sent on the first one
// (so that a failure before it can still be a JSON error).
type eventStream struct {
	mu            sync.Mutex
	w             http.ResponseWriter
	started       bool
	closed        bool // no more events: the stream was cut
	outputs       int  // output events written
	onFirstOutput func()
}

func newEventStream(w http.ResponseWriter) *eventStream { return &eventStream{w: w} }

func (s *eventStream) send(ev event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if !s.started {
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		h.Set("Connection", "keep-alive")
		h.Set("X-Accel-Buffering", "no")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	ev.Timestamp = time.Now().UnixMilli()
	b, _ := json.Marshal(ev)
	_, _ = s.w.Write(append(b, '\n', '\n'))
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	if ev.Type == "stdout" || ev.Type == "stderr" {
		s.outputs++
		if s.outputs == 1 && s.onFirstOutput != nil {
			s.onFirstOutput()
		}
	}
}

// close refuses every later event.
func (s *eventStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}

// lineEvents turns a command's output into one event per line as execd
// does: the line without its terminator, "\n" for a blank line, "\r" taken
// for a line end too, and an unfinished last line sent when output ends.
type lineEvents struct {
	stream *eventStream
	kind   string // stdout or stderr
	mu     sync.Mutex
	line   bytes.Buffer
	cr     bool // the last byte was \r, so a \n right after it ends nothing
}

func (l *lineEvents) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, b := range p {
		if b != '\n' && b != '\r' {
			l.cr = false
			l.line.WriteByte(b)
			continue
		}
		switch {
		case l.line.Len() > 0:
			l.stream.send(event{Type: l.kind, Text: l.line.String()})
			l.line.Reset()
		case b == '\n' && l.cr:
		default:
			l.stream.send(event{Type: l.kind, Text: "\n"})
		}
		l.cr = b == '\r'
	}
	return len(p), nil
}

// flush sends the unfinished last line.
func (l *lineEvents) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.line.Len() > 0 {
		l.stream.send(event{Type: l.kind, Text: l.line.String()})
		l.line.Reset()
	}
}
