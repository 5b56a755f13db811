package fakekit

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCounterCountsByOperation(t *testing.T) {
	var c Counter[string]
	assert.Empty(t, c.AllCalls())
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(2)
		go func() { defer wg.Done(); c.Count("create") }()
		go func() { defer wg.Done(); c.Count("get") }()
	}
	wg.Wait()
	c.Count("get")
	assert.Equal(t, 50, c.Calls("create"))
	assert.Equal(t, 101, c.TotalCalls())
	all := c.AllCalls()
	assert.Equal(t, map[string]int{"create": 50, "get": 51}, all)
	all["create"] = 0
	assert.Equal(t, 50, c.Calls("create"), "AllCalls hands out a copy")
	c.ResetCalls()
	assert.Zero(t, c.TotalCalls())
}

func TestFaultsQueuedLastTheirCallsInOrder(t *testing.T) {
	var fs Faults[string, int]
	fs.Queue("get", 429, 2)
	fs.Queue("get", 409, 0)
	var got []int
	for range 4 {
		f, ok := fs.Take("get")
		if !ok {
			f = 200
		}
		got = append(got, f)
	}
	assert.Equal(t, []int{429, 429, 409, 200}, got)
}

func TestFaultsSetLastUntilCleared(t *testing.T) {
	var fs Faults[string, int]
	fs.Queue("create", 500, 1)
	fs.Set("create", 503)
	for range 3 {
		f, ok := fs.Take("create")
		assert.True(t, ok)
		assert.Equal(t, 503, f, "Set replaces what was injected before")
	}
	_, ok := fs.Take("delete")
	assert.False(t, ok)
	fs.Clear()
	_, ok = fs.Take("create")
	assert.False(t, ok)
}

func TestWaitEndsWithTheRequestOrTheFake(t *testing.T) {
	assert.True(t, Wait(context.Background(), time.Millisecond, nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, Wait(ctx, time.Hour, nil))
	stop := make(chan struct{})
	close(stop)
	assert.False(t, Wait(context.Background(), time.Hour, stop))
}

func TestLatencyDelaysEveryRequest(t *testing.T) {
	srv := httptest.NewServer(Latency(50*time.Millisecond, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})))
	defer srv.Close()
	began := time.Now()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	assert.GreaterOrEqual(t, time.Since(began), 50*time.Millisecond)
}

func TestDropLeavesTheClientWithoutAnAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { Drop(w) }))
	defer srv.Close()
	_, err := http.Get(srv.URL)
	require.Error(t, err)
}

func TestSlowSendsTheAnswerInPieces(t *testing.T) {
	body := strings.Repeat("x", 2*slowPiece) + "end"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(Slow(w, r, 50*time.Millisecond), body)
	}))
	defer srv.Close()
	began := time.Now()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	first := make([]byte, len(body))
	n, err := resp.Body.Read(first)
	require.NoError(t, err)
	assert.Equal(t, slowPiece, n, "the first piece arrives alone")
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, body, string(first[:n])+string(rest))
	assert.GreaterOrEqual(t, time.Since(began), 100*time.Millisecond)
}

func TestTransitMovesOnByLooks(t *testing.T) {
	var tr Transit
	tr.Go(2, "starting", "restoring", "started")
	assert.True(t, tr.Moving())
	var seen []string
	for tr.Moving() {
		if state, moved := tr.Look(); moved {
			seen = append(seen, state)
		}
	}
	assert.Equal(t, []string{"restoring", "started"}, seen)
	state, moved := tr.Look()
	assert.Equal(t, "started", state)
	assert.False(t, moved)

	tr.Go(0, "stopping", "stopped")
	state, moved = tr.Look()
	assert.Equal(t, "stopped", state, "a state lasts at least one look")
	assert.True(t, moved)

	tr.Go(1, "destroying", "destroyed")
	tr.Set("error")
	assert.False(t, tr.Moving())
	assert.Equal(t, "error", tr.State)
}
