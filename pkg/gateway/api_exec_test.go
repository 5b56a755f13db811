package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/client/sse"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

func TestExecute(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	res := h.exec(sb.ID, map[string]any{"command": "echo out; echo err >&2; exit 3"})
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, "out\n", res.Stdout)
	assert.Equal(t, "err\n", res.Stderr)
	assert.False(t, res.TimedOut)

	job := h.launcher.lastJob()
	assert.Equal(t, 1800*time.Second, job.Timeout, "the default timeout")
	assert.Equal(t, "echo out; echo err >&2; exit 3", job.Command)
}

func TestExecuteTimeoutBounds(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	for _, timeout := range []any{0, -1, 3601, 86400} {
		p := problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "true", "timeout": timeout}),
			http.StatusUnprocessableEntity, auxilia.CodeInvalid)
		require.Len(t, p.Errors, 1)
		assert.Equal(t, "timeout", p.Errors[0].Field)
	}
	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "true", "timeout": 1.5}),
		http.StatusBadRequest, auxilia.CodeMalformed)
	for _, timeout := range []int{1, 3600} {
		h.exec(sb.ID, map[string]any{"command": "true", "timeout": timeout})
		assert.Equal(t, time.Duration(timeout)*time.Second, h.launcher.lastJob().Timeout)
	}
	p := problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "  "}),
		http.StatusUnprocessableEntity, auxilia.CodeInvalid)
	assert.Equal(t, "command", p.Errors[0].Field)
}

func TestExecuteTimesOut(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	start := time.Now()
	res := h.exec(sb.ID, map[string]any{"command": "echo started; sleep 30; echo never", "timeout": 1})
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.True(t, res.TimedOut)
	assert.Equal(t, 124, res.ExitCode)
	assert.Equal(t, "started\n", res.Stdout)
}

func TestExecuteCapsEachStreamAt2MiB(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	res := h.exec(sb.ID, map[string]any{"command": "head -c 3000000 /dev/zero | tr '\\0' a; echo small >&2"})
	assert.Equal(t, 0, res.ExitCode)
	assert.True(t, res.StdoutTruncated)
	assert.False(t, res.StderrTruncated)
	notice := "\n" + truncationNotice("stdout", 2<<20) + "\n"
	require.True(t, strings.HasSuffix(res.Stdout, notice), "stdout ends with the notice: %q", tail(res.Stdout))
	assert.Equal(t, strings.Repeat("a", 2<<20), strings.TrimSuffix(res.Stdout, notice))
	assert.Equal(t, "small\n", res.Stderr, "the other stream is kept whole")

	res = h.exec(sb.ID, map[string]any{"command": "printf 'ab\\n%.0s' $(seq 100)", "output_limit": 10})
	assert.Equal(t, "ab\nab\nab\na\n"+truncationNotice("stdout", 10)+"\n", res.Stdout, "a smaller cap on request")
	problem(t, h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "true", "output_limit": 2<<20 + 1}),
		http.StatusUnprocessableEntity, auxilia.CodeInvalid)
}

func TestExecuteStreams(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	resp := h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "echo one; sleep 0.2; echo two >&2; exit 7"},
		"Accept", "text/event-stream")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := readEvents(t, resp)
	require.GreaterOrEqual(t, len(events), 3)
	assert.Equal(t, sseEvent{"stdout", `{"text":"one\n"}`}, events[0])
	assert.Equal(t, sseEvent{"stderr", `{"text":"two\n"}`}, events[1])
	last := events[len(events)-1]
	require.Equal(t, "exit", last.name)
	var exit exitEvent
	require.NoError(t, json.Unmarshal([]byte(last.data), &exit))
	assert.Equal(t, 7, exit.ExitCode)
	assert.False(t, exit.TimedOut)

	resp = h.call("POST", "/sandboxes/nope/exec", map[string]any{"command": "true"}, "Accept", "text/event-stream")
	problem(t, resp, http.StatusNotFound, auxilia.CodeNotFound, wire.SubjectSandbox)
}

func TestExecuteEndsWhenTheSandboxIsDeleted(t *testing.T) {
	h := newHarness(t)
	sb := h.create(sandboxSpec{})
	done := make(chan *http.Response, 1)
	go func() {
		done <- h.call("POST", "/sandboxes/"+sb.ID+"/exec", map[string]any{"command": "sleep 30"})
	}()
	require.Eventually(t, func() bool {
		h.launcher.mu.Lock()
		defer h.launcher.mu.Unlock()
		return len(h.launcher.jobs) == 1
	}, 5*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	h.call("DELETE", "/sandboxes/"+sb.ID, nil)
	select {
	case resp := <-done:
		assert.NotEqual(t, http.StatusInternalServerError, resp.StatusCode)
	case <-time.After(10 * time.Second):
		t.Fatal("the command outlived its sandbox")
	}
}

type sseEvent struct{ name, data string }

func readEvents(t *testing.T, resp *http.Response) []sseEvent {
	t.Helper()
	var events []sseEvent
	stream := sse.NewReader(resp.Body, sse.Options{})
	for {
		ev, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return events
		}
		require.NoError(t, err)
		events = append(events, sseEvent{ev.Name, string(ev.Data)})
	}
}

func tail(s string) string {
	if len(s) > 120 {
		return "…" + s[len(s)-120:]
	}
	return s
}
