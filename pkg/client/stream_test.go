package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stream that fails once begun ends with an `error` event carrying the
// problem (as api/stream.go's executeStream writes it): the iterator yields
// the output before it, then the problem as an *Error, and stops.
func TestAStreamsErrorEventIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "text/event-stream", r.Header.Get("Accept"))
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(": keepalive\n\nevent: stdout\ndata: {\"text\":\"partial\"}\n\n" +
			"event: error\ndata: {\"type\":\"t\",\"title\":\"Unavailable\",\"status\":503,\"detail\":\"The server is shutting down\",\"reason\":\"unavailable\"}\n\n" +
			"event: stdout\ndata: {\"text\":\"never read\"}\n\n"))
	}))
	defer srv.Close()
	api, err := New(srv.URL, "aux_token", Options{Backoff: func(int) time.Duration { return 0 }})
	require.NoError(t, err)

	var texts []string
	var failure error
	for e, err := range Stream(context.Background(), api, uuid.New(), nil, ExecuteRequest{Command: "sleep 60"}) {
		if err != nil {
			failure = err
			continue
		}
		texts = append(texts, e.Output.Text)
	}
	assert.Equal(t, []string{"partial"}, texts)
	var problem *Error
	require.True(t, errors.As(failure, &problem), "%v", failure)
	assert.Equal(t, 503, problem.Status)
	assert.Equal(t, "unavailable", problem.Reason)
}

// A stream that ends before its exit event (a proxy's timeout, a connection
// cut) is an error, not a command that ended well.
func TestAStreamWithoutItsExitIsAnError(t *testing.T) {
	for name, body := range map[string]string{
		"between events":  "event: stdout\ndata: {\"text\":\"partial\"}\n\n",
		"inside an event": "event: stdout\ndata: {\"text\":\"partial\"}\n\nevent: exit\ndata: {\"exit_co",
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(body))
			}))
			defer srv.Close()
			api, err := New(srv.URL, "aux_token", Options{Backoff: func(int) time.Duration { return 0 }})
			require.NoError(t, err)
			var texts []string
			var failure error
			for e, err := range Stream(context.Background(), api, uuid.New(), nil, ExecuteRequest{Command: "make"}) {
				if err != nil {
					failure = err
					continue
				}
				texts = append(texts, e.Output.Text)
			}
			assert.Equal(t, []string{"partial"}, texts)
			assert.ErrorIs(t, failure, io.ErrUnexpectedEOF)
		})
	}
}
