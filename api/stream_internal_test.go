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
