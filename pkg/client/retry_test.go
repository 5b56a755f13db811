package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
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

// A create gets a key of its own when the caller gave none, so it too is
// sent again when the server is busy, and made once.
func TestACreateWithoutAKeyGetsOne(t *testing.T) {
	f := &fakeServer{script: []int{503}}
	api := newTestClient(t, f)
	_, err := Expect(api.CreateAgentWithResponse(context.Background(), nil, AgentCreate{Name: "Analyst"}))
	require.NoError(t, err)
	require.Len(t, f.keys, 2, "sent again")
	assert.NotEmpty(t, f.keys[0])
	assert.Equal(t, f.keys[0], f.keys[1])

	given := "the-callers-own-key"
	_, err = Expect(api.CreateAgentWithResponse(context.Background(), &CreateAgentParams{IdempotencyKey: &given}, AgentCreate{Name: "Analyst"}))
	require.NoError(t, err)
	assert.Equal(t, given, f.keys[2], "a key the caller gave is the one sent")
}

// A POST that is no create (a command to run) gets no key: the server
// would not honour it, and the command would run twice.
func TestAPostThatIsNoCreateIsSentOnce(t *testing.T) {
	f := &fakeServer{script: []int{503}}
	api := newTestClient(t, f)
	_, err := api.ExecuteWithResponse(context.Background(), uuid.New(), nil, ExecuteRequest{Command: "make"})
	require.NoError(t, err)
	assert.Equal(t, []string{""}, f.keys)
}

// The creates the client keys are the operations whose spec takes an
// Idempotency-Key, no more and no fewer.
func TestTheCreatesAreTheOperationsThatTakeAKey(t *testing.T) {
	raw, err := os.ReadFile("../../openapi.yaml")
	require.NoError(t, err)
	var spec struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string }
		}
	}
	require.NoError(t, yaml.Unmarshal(raw, &spec))
	var keyed []string
	for p, ops := range spec.Paths {
		for method, op := range ops {
			for _, param := range op.Parameters {
				if param.In == "header" && param.Name == "Idempotency-Key" {
					assert.Equal(t, "post", method, p)
					keyed = append(keyed, regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(p, "*"))
				}
			}
		}
	}
	assert.ElementsMatch(t, creates, keyed)
}

// Retry-After as an HTTP date is waited for as its seconds are.
func TestRetryAfterAsADate(t *testing.T) {
	f := &fakeServer{script: []int{429}, retryGap: time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)}
	api := newTestClient(t, f)
	began := time.Now()
	_, err := Expect(api.ListAgentsWithResponse(context.Background(), nil))
	require.NoError(t, err)
	assert.Len(t, f.keys, 2)
	assert.Greater(t, time.Since(began), 900*time.Millisecond, "waited until the date (a second's precision)")

	f = &fakeServer{script: []int{429}, retryGap: time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}
	api = newTestClient(t, f)
	_, err = Expect(api.ListAgentsWithResponse(context.Background(), nil))
	var problem *Error
	require.ErrorAs(t, err, &problem, "the answer reads, its date given as seconds")
	assert.Len(t, f.keys, 1, "an hour away is the caller's answer")
}

func TestRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		header string
		wait   time.Duration
		ok     bool
	}{
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"Fri, 04 Dec 2026 12:00:30 GMT", 30 * time.Second, true},
		{"Fri, 04 Dec 2026 11:00:00 GMT", 0, true},
		{"soon", 0, false},
		{"", 0, false},
	} {
		wait, ok := retryAfter(c.header, now)
		assert.Equal(t, c.ok, ok, c.header)
		assert.Equal(t, c.wait, wait, c.header)
	}
}

// Each wait is lengthened by up to a quarter, differently each time.
func TestWaitsAreJittered(t *testing.T) {
	seen := map[time.Duration]bool{}
	for range 100 {
		d := jittered(time.Second)
		assert.GreaterOrEqual(t, d, time.Second)
		assert.Less(t, d, time.Second+time.Second/4)
		seen[d] = true
	}
	assert.Greater(t, len(seen), 1)
	assert.Equal(t, time.Duration(0), jittered(0))
}

// A file written with overwrite=false (or without overwrite) is not sent
// again: the second attempt would find the first one's file and fail.
// With overwrite=true it is.
func TestAFileIsRewrittenOnlyWhenItMayBeReplaced(t *testing.T) {
	for _, c := range []struct {
		overwrite *bool
		sent      int
	}{{nil, 1}, {ptr(false), 1}, {ptr(true), 2}} {
		f := &fakeServer{script: []int{503}}
		api := newTestClient(t, f)
		_, err := api.WriteFileWithBodyWithResponse(context.Background(), uuid.New(),
			&WriteFileParams{Path: "a.txt", Overwrite: c.overwrite}, "application/octet-stream", strings.NewReader("hello"))
		require.NoError(t, err)
		assert.Len(t, f.keys, c.sent, "overwrite %v", c.overwrite)
	}
}

func ptr[T any](v T) *T { return &v }
