package api

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/labstack/echo/v4"
)

// wantsEventStream reports whether the client asked for server-sent events.
func wantsEventStream(c echo.Context) bool {
	for _, part := range strings.Split(c.Request().Header.Get(echo.HeaderAccept), ",") {
		if mt, _, err := mime.ParseMediaType(strings.TrimSpace(part)); err == nil && mt == "text/event-stream" {
			return true
		}
	}
	return false
}

// eventStream writes server-sent events.
type eventStream struct {
	c       echo.Context
	started bool
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
	s.start()
	js, _ := json.Marshal(data)
	fmt.Fprintf(s.c.Response(), "event: %s\ndata: %s\n\n", event, js)
	s.c.Response().Flush()
}

// executeStream runs a command, streaming its output as it arrives. A
// failure before the first event is an ordinary problem answer; after it, an
// `error` event carrying the problem ends the stream.
func (h runsHandler) executeStream(c echo.Context, runID string, in run.ExecInput) error {
	stream := &eventStream{c: c}
	in.OnOutput = func(kind, text string) { stream.send(kind, map[string]string{"text": text}) }
	res, err := h.svc.Execute(c.Request().Context(), actor(c).Workspace.ID, runID, in)
	if c.Request().Context().Err() != nil {
		// The server is shutting down (or the client left): end the stream with a final event.
		err = auxilia.Errorf(auxilia.CodeUnavailable, "The server is shutting down: the command was ended. Run it again.")
		stream.start() // a stream may end with an error even before its first output
	}
	if err != nil && !stream.started {
		return err
	}
	if err != nil {
		p := problemOf(err)
		p.Instance = c.Request().URL.Path
		stream.send("error", p)
		return nil
	}
	stream.send("exit", map[string]any{"exit_code": res.ExitCode, "duration_ms": res.Duration.Milliseconds(), "truncated": res.Truncated})
	return nil
}
