package provider

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestStatusKind(t *testing.T) {
	for status, kind := range map[int]error{401: ErrUnauthorized, 403: ErrUnauthorized, 408: ErrTimeout, 504: ErrTimeout,
		400: ErrFailed, 404: ErrFailed, 500: ErrFailed} {
		assert.Same(t, kind, StatusKind(status), "%d", status)
	}
}

func TestRetryAfterTakesTheLongestOfItsHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After-authenticated", "3")
	h.Set("Retry-After-sandbox-lifecycle", "7")
	assert.Equal(t, 7*time.Second, RetryAfter(h))
	h = http.Header{}
	h.Set("Retry-After", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat))
	assert.InDelta(t, float64(time.Minute), float64(RetryAfter(h)), float64(2*time.Second))
	assert.Zero(t, RetryAfter(http.Header{"Retry-After": {"soon"}}))
}

func TestClipCutsAtACharacter(t *testing.T) {
	assert.Equal(t, "short", Clip("short", 10))
	assert.Equal(t, "ab…", Clip("abé", 3))
}
