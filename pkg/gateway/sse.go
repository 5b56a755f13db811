package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// keepAliveEvery sends a comment on a quiet stream, so proxies do not close it.
const keepAliveEvery = 15 * time.Second

// eventStream writes server-sent events. Its headers go out with the first
// event, so a failure before any output can still be a plain problem answer.
type eventStream struct {
	w       http.ResponseWriter
	flusher http.Flusher

	mu      sync.Mutex
	started bool
}

func newEventStream(w http.ResponseWriter) *eventStream {
	f, _ := w.(http.Flusher)
	return &eventStream{w: w, flusher: f}
}

func (e *eventStream) output(stream, text string) {
	e.send(stream, struct {
		Text string `json:"text"`
	}{text})
}

// send writes one event whose data is v as JSON.
func (e *eventStream) send(event string, v any) {
	data, _ := json.Marshal(v)
	e.write(fmt.Sprintf("event: %s\ndata: %s\n\n", event, data))
}

func (e *eventStream) comment(text string) { e.write(": " + text + "\n\n") }

func (e *eventStream) write(frame string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.started {
		h := e.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-store")
		h.Set("X-Accel-Buffering", "no")
		e.w.WriteHeader(http.StatusOK)
		e.started = true
	}
	_, _ = e.w.Write([]byte(frame))
	if e.flusher != nil {
		e.flusher.Flush()
	}
}

// isStarted reports whether the stream's headers have gone out.
func (e *eventStream) isStarted() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.started
}

// keepAlive sends comments until stop is closed; done is closed when it has returned.
func (e *eventStream) keepAlive(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	tick := time.NewTicker(keepAliveEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			e.comment("keepalive")
		}
	}
}
