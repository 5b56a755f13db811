package api

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

func TestSilentStreamsSendHeartbeats(t *testing.T) {
	rec := httptest.NewRecorder()
	c := echo.New().NewContext(httptest.NewRequest("POST", "/", nil), rec)
	stream := &eventStream{c: c}
	stop := stream.heartbeat(5 * time.Millisecond)
	time.Sleep(40 * time.Millisecond)
	stream.send("stdout", map[string]string{"text": "x"})
	stop()
	body := rec.Body.String()
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	assert.GreaterOrEqual(t, strings.Count(body, ": keepalive\n\n"), 2)
	assert.Contains(t, body, "event: stdout\ndata: {\"text\":\"x\"}\n\n")
}

// The stream is chosen only when the client weighs it above zero and no
// lower than JSON; q=0 means "not this".
func TestTheEventStreamHonoursAcceptWeights(t *testing.T) {
	for accept, want := range map[string]bool{
		"text/event-stream":                            true,
		"text/event-stream, application/json":          true,
		"application/json;q=0.5, text/event-stream":    true,
		"text/event-stream;q=0.8, */*;q=0.1":           true,
		"text/event-stream;q=0":                        false,
		"text/event-stream;q=0.0, application/json":    false,
		"application/json, text/event-stream;q=0.5":    false,
		"*/*, text/event-stream;q=0.5":                 false,
		"application/*;q=0.9, text/event-stream;q=0.3": false,
		"text/event-stream;q=bad":                      false,
		"*/*":                                          false,
		"text/*":                                       false,
		"":                                             false,
	} {
		req := httptest.NewRequest("POST", "/", nil)
		req.Header.Set("Accept", accept)
		assert.Equal(t, want, wantsEventStream(echo.New().NewContext(req, httptest.NewRecorder())), "Accept: %q", accept)
	}
}
