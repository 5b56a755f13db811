package api

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/labstack/echo/v4"
)

// wantsEventStream reports whether the client asked for server-sent events:
// its Accept names text/event-stream with a weight above zero and no lower
// than the JSON answer's (RFC 9110 §12.5.1; the most specific range weighs
// a type, and a tie keeps the stream the client named).
func wantsEventStream(c echo.Context) bool {
	weights := acceptWeights(c.Request().Header.Get(echo.HeaderAccept))
	stream, named := weights["text/event-stream"]
	return named && stream > 0 && stream >= weightOf(weights, "application/json")
}

// acceptWeights reads an Accept header as each media range's weight.
// A range whose weight cannot be read is left out.
func acceptWeights(accept string) map[string]float64 {
	weights := map[string]float64{}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if q, err = strconv.ParseFloat(v, 64); err != nil || q < 0 || q > 1 {
				continue
			}
		}
		weights[mt] = q
	}
	return weights
}

// weightOf is the weight of a media type: that of the most specific range
// that matches it, or zero.
func weightOf(weights map[string]float64, mediaType string) float64 {
	major, _, _ := strings.Cut(mediaType, "/")
	for _, r := range []string{mediaType, major + "/*", "*/*"} {
		if q, ok := weights[r]; ok {
			return q
		}
	}
	return 0
}

// heartbeatEvery is how often a silent stream sends a comment, so that
// proxies in front do not end a command that prints nothing for a while.
const heartbeatEvery = 15 * time.Second

// eventStream writes server-sent events. Its methods are safe to call from
// several goroutines: output and heartbeats arrive independently.
type eventStream struct {
	c       echo.Context
	mu      sync.Mutex
	started bool
}

// heartbeat sends a comment every interval until stop is called.
func (s *eventStream) heartbeat(every time.Duration) (stop func()) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				s.mu.Lock()
				s.start()
				fmt.Fprint(s.c.Response(), ": keepalive\n\n")
				s.c.Response().Flush()
				s.mu.Unlock()
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// start sends the stream's headers, once.
func (s *eventStream) start() {
	if s.c.Response().Committed {
		return
	}
	h := s.c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // proxies must not hold the stream back
	s.c.Response().WriteHeader(http.StatusOK)
	s.started = true
}

func (s *eventStream) send(event string, data any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.start()
	js, _ := json.Marshal(data)
	fmt.Fprintf(s.c.Response(), "event: %s\ndata: %s\n\n", event, js)
	s.c.Response().Flush()
}

// StreamOutput is the data of an execute stream's `stdout` and `stderr` events.
type StreamOutput struct {
	// The output as it arrived: any piece of a line, or several lines.
	Text string `json:"text"`
}

// StreamExit is the data of an execute stream's last event, `exit`.
type StreamExit struct {
	ExitCode   int   `json:"exit_code"`
	DurationMS int64 `json:"duration_ms"`
	// Some output was left out: past the limit a command's output may reach.
	Truncated bool `json:"truncated"`
}

// StreamEvents are the events of an execute stream, each with its data.
// A failure after the first event ends the stream with an `error` event
// whose data is the problem.
var StreamEvents = []struct {
	Name string
	Data any
}{
	{"stdout", StreamOutput{}},
	{"stderr", StreamOutput{}},
	{"exit", StreamExit{}},
	{"error", Problem{}},
}

// executeStream runs a command, streaming its output as it arrives. A
// failure before the first event is an ordinary problem answer; after it, an
// `error` event carrying the problem ends the stream.
func (h runsHandler) executeStream(c echo.Context, runID string, in run.ExecInput) error {
	stream := &eventStream{c: c}
	in.OnOutput = func(kind, text string) { stream.send(kind, StreamOutput{Text: text}) }
	stop := stream.heartbeat(heartbeatEvery)
	res, err := h.svc.Execute(c.Request().Context(), actor(c).Workspace.ID, runID, in)
	stop()
	if c.Request().Context().Err() != nil {
		// The server is shutting down (or the client left): end the stream with a final event.
		err = auxilia.Errorf(auxilia.CodeUnavailable, "The server is shutting down: the command was ended. Run it again.")
		stream.mu.Lock()
		stream.start() // a stream may end with an error even before its first output
		stream.mu.Unlock()
	}
	stream.mu.Lock()
	started := stream.started
	stream.mu.Unlock()
	if err != nil && !started {
		return err
	}
	if err != nil {
		p := problemOf(err)
		p.Instance = c.Request().URL.Path
		stream.send("error", p)
		return nil
	}
	stream.send("exit", StreamExit{ExitCode: res.ExitCode, DurationMS: res.Duration.Milliseconds(), Truncated: res.Truncated})
	return nil
}
