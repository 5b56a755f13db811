package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeServer answers each request with the next status of its script
// (then 201) and records the requests' Idempotency-Key and Authorization.
// Its refusals are problem+json with Retry-After on a 429, as this server's
// api/problem.go and api/ratelimit.go write them.
type fakeServer struct {
	mu       sync.Mutex
	script   []int
	keys     []string
	bearers  []string
	retryGap string
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
	f.bearers = append(f.bearers, r.Header.Get("Authorization"))
	status := http.StatusCreated
	if len(f.script) > 0 {
		status, f.script = f.script[0], f.script[1:]
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", f.retryGap)
	}
	if status >= 400 {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"type":"about:blank","title":"t","status":` + strconv.Itoa(status) + `,"detail":"busy","reason":"rate_limited"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"id":"0199a6f2-0000-7000-8000-000000000001","name":"Analyst"}`))
}

func newTestClient(t *testing.T, f *fakeServer) *API {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	api, err := New(srv.URL, "aux_token", Options{Backoff: func(int) time.Duration { return 0 }})
	require.NoError(t, err)
	return api
}

// A create with an Idempotency-Key is sent again, with the same key, when
// the server is busy; the server then makes it once.
func TestACreateWithAKeyIsRetriedWithTheSameKey(t *testing.T) {
	f := &fakeServer{script: []int{503, 429}, retryGap: "0"}
	api := newTestClient(t, f)
	res, err := Expect(api.CreateAgentWithResponse(context.Background(), &CreateAgentParams{IdempotencyKey: NewKey()},
		AgentCreate{Name: "Analyst"}))
	require.NoError(t, err)
	assert.Equal(t, 201, res.StatusCode())
	require.Len(t, f.keys, 3)
	assert.NotEmpty(t, f.keys[0])
	assert.Equal(t, []string{f.keys[0], f.keys[0], f.keys[0]}, f.keys, "every attempt carries the same key")
	assert.Equal(t, "Bearer aux_token", f.bearers[0])
}

// Without a key a POST is sent once: sending it again could make twice.
func TestACreateWithoutAKeyIsNotRetried(t *testing.T) {
	f := &fakeServer{script: []int{503}}
	api := newTestClient(t, f)
	_, err := Expect(api.CreateAgentWithResponse(context.Background(), nil, AgentCreate{Name: "Analyst"}))
	var problem *Error
	require.ErrorAs(t, err, &problem)
	assert.Equal(t, 503, problem.Status)
	assert.Len(t, f.keys, 1)
}

// Attempts bounds the retries; the last answer is the caller's.
func TestRetriesStopAtTheAttempts(t *testing.T) {
	f := &fakeServer{script: []int{503, 503, 503, 503}}
	api := newTestClient(t, f)
	_, err := Expect(api.ListAgentsWithResponse(context.Background(), nil))
	var problem *Error
	require.ErrorAs(t, err, &problem)
	assert.Equal(t, 503, problem.Status)
	assert.Equal(t, "rate_limited", problem.Reason)
	assert.Len(t, f.keys, 3)
}

// A Retry-After longer than the client waits (a provider's rate limit of an
// hour, relayed) is the caller's answer at once, not an hour's block.
func TestALongRetryAfterIsTheCallersAnswer(t *testing.T) {
	f := &fakeServer{script: []int{429}, retryGap: "3600"}
	api := newTestClient(t, f)
	began := time.Now()
	_, err := Expect(api.ListAgentsWithResponse(context.Background(), nil))
	var problem *Error
	require.ErrorAs(t, err, &problem)
	assert.Equal(t, 429, problem.Status)
	assert.Len(t, f.keys, 1, "not sent again")
	assert.Less(t, time.Since(began), 5*time.Second)
}
