package daytona

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetryAfterReadsEveryLimit(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After-authenticated", "3")
	h.Set("Retry-After-sandbox-lifecycle", "7")
	h.Set("X-RateLimit-Reset-authenticated", "99")
	assert.Equal(t, 7*time.Second, provider.RetryAfter(h), "the longest named limit wins")

	h = http.Header{}
	h.Set("Retry-After", "2")
	assert.Equal(t, 2*time.Second, provider.RetryAfter(h), "the failed-auth limit's plain header")

	h.Set("Retry-After", time.Now().Add(time.Minute).UTC().Format(http.TimeFormat))
	assert.InDelta(t, time.Minute.Seconds(), provider.RetryAfter(h).Seconds(), 2, "an HTTP date")

	assert.Zero(t, provider.RetryAfter(http.Header{}))
}

func TestDecodeListShapes(t *testing.T) {
	items, cursor, err := decodeList[fileEntry]([]byte(`[{"name":"a"},{"name":"b"}]`))
	require.NoError(t, err)
	assert.Len(t, items, 2)
	assert.Empty(t, cursor)

	items, cursor, err = decodeList[fileEntry]([]byte(`{"items":[{"name":"a"}],"nextCursor":"c2"}`))
	require.NoError(t, err)
	assert.Equal(t, "a", items[0].Name)
	assert.Equal(t, "c2", cursor)

	items, _, err = decodeList[fileEntry]([]byte(`{"items":[],"nextCursor":null}`))
	require.NoError(t, err)
	assert.Empty(t, items)

	_, _, err = decodeList[fileEntry]([]byte(`{"message":"nope"}`))
	assert.Error(t, err)
}

func TestCaptureSegments(t *testing.T) {
	cp := newCapture(100)
	raw := "out1\n" + cp.open + "err1\n" + cp.close + cp.open + "err2\n" + cp.close + "out2" + cp.open + "cut sh"
	assert.Equal(t, []segment{
		{"stdout", "out1\n"}, {"stderr", "err1\nerr2\n"}, {"stdout", "out2"}, {"stderr", "cut sh"},
	}, cp.segments(raw))
	assert.Empty(t, cp.segments(""))
}

func TestCaptureSendsEnoughToFillTheLimit(t *testing.T) {
	cp := newCapture(10)
	// The worst case: one-byte lines of stderr, each with its markers.
	var raw string
	for len(raw) < cp.send {
		raw += cp.open + "\n" + cp.close
	}
	out := provider.NewOutput(provider.ExecRequest{OutputLimit: 10})
	cp.replay(raw[:cp.send], out)
	assert.True(t, out.Result(0, false, 0, 0).Truncated)
}

func TestDescribeBothDialects(t *testing.T) {
	api := answer{Status: 404, Body: []byte(`{"path":"/api/sandbox/x","timestamp":"2026-01-01T00:00:00.000Z","statusCode":404,"error":"Not Found","message":"Sandbox with ID or name x not found"}`)}
	assert.Equal(t, "HTTP 404 Not Found: Sandbox with ID or name x not found", describe(api))
	toolbox := answer{Status: 400, Body: []byte(`{"statusCode":400,"message":"bad request: no IP address found. Is the Sandbox started?","code":"BAD_REQUEST","timestamp":"2026-01-01T00:00:00Z","path":"/x","method":"GET"}`)}
	assert.Equal(t, "HTTP 400 BAD_REQUEST: bad request: no IP address found. Is the Sandbox started?", describe(toolbox))
	assert.True(t, refusedForSandbox(toolbox))
	list := answer{Status: 400, Body: []byte(`{"statusCode":400,"error":"Bad Request","message":["target must be a string","labels must be an object"]}`)}
	assert.Equal(t, "HTTP 400 Bad Request: target must be a string, labels must be an object", describe(list))
	empty := answer{Status: 404}
	assert.Equal(t, "HTTP 404 Not Found (no message)", describe(empty))
	assert.False(t, refusedForSandbox(empty), "the daemon's bare 404 is a missing file")
	text := answer{Status: 502, Body: []byte("<html>Bad Gateway</html>")}
	assert.Equal(t, "HTTP 502 Bad Gateway: <html>Bad Gateway</html>", describe(text))
}

func TestModifiedFromOlderDaemons(t *testing.T) {
	e := fileEntry{ModTime: "2024-05-01 10:11:12.5 +0000 UTC"}
	assert.Equal(t, time.Date(2024, 5, 1, 10, 11, 12, 500_000_000, time.UTC), e.modified().UTC())
}

// Daytona's snapshot size is GiB, a fraction the runner divided bytes by
// 1024³ for, or null.
func TestSnapshotSizeInBytes(t *testing.T) {
	for _, c := range []struct {
		json string
		want int64
	}{
		{`{"size":null}`, 0},
		{`{}`, 0},
		{`{"size":0}`, 0},
		{`{"size":-1}`, 0},
		{`{"size":1}`, 1 << 30},
		{`{"size":0.5}`, 1 << 29},
		{`{"size":4.656612873077393e-06}`, 5000},
	} {
		var s snapshotInfo
		require.NoError(t, json.Unmarshal([]byte(c.json), &s))
		assert.Equal(t, c.want, s.bytes(), c.json)
	}
}
