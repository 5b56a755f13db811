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

// An EventStream is what an operation's text/event-stream answer sends:
// its events, each with its data, of which the last ones end the stream.
// A failure after the first event ends the stream with an `error` event
// whose data is the problem.
type EventStream struct {
	Events []StreamEvent
	// Ends names the events that end the stream.
	Ends []string
	// Example is a short stream, as sent.
	Example string
}

// StreamEvent is one event of a stream and its data.
type StreamEvent struct {
	Name string
	Data any
	// Schema is the data's component in openapi.yaml, when its type's name is not.
	Schema string
}

// EventStreams are the streams the API answers with, by operation id.
var EventStreams = map[string]EventStream{
	"execute": {
		Events: []StreamEvent{{Name: "stdout", Data: StreamOutput{}}, {Name: "stderr", Data: StreamOutput{}},
			{Name: "exit", Data: StreamExit{}}, {Name: "error", Data: Problem{}}},
		Ends:    []string{"exit", "error"},
		Example: "event: stdout\ndata: {\"text\":\"42\\n\"}\n\nevent: exit\ndata: {\"exit_code\":0,\"duration_ms\":31,\"truncated\":false}\n\n",
	},
	"startRun": runStartStream,
}

// streamSent reports whether the stream has sent anything yet.
func (s *eventStream) streamSent() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
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
	err = stream.interrupted(err, "The server is shutting down: the command was ended. Run it again.")
	if err != nil {
		return stream.fail(err)
	}
	stream.send("exit", StreamExit{ExitCode: res.ExitCode, DurationMS: res.Duration.Milliseconds(), Truncated: res.Truncated})
	return nil
}

// interrupted is err, or, when the server is shutting down (or the client
// left), the problem that says so, sent as the stream's final event even
// before its first.
func (s *eventStream) interrupted(err error, detail string) error {
	if s.c.Request().Context().Err() == nil {
		return err
	}
	s.mu.Lock()
	s.start()
	s.mu.Unlock()
	return shuttingDown(detail)
}

// fail ends the stream with an `error` event carrying the problem; a
// stream that sent nothing yet answers with the problem itself, returned.
func (s *eventStream) fail(err error) error {
	if !s.streamSent() {
		return err
	}
	p := problemOf(err)
	p.Instance = s.c.Request().URL.Path
	s.send("error", p)
	return nil
}
