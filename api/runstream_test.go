package api_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sse is one server-sent event.
type sse struct{ name, data string }

// readEvents reads a text/event-stream to its end.
func readEvents(t *testing.T, body io.Reader) []sse {
	t.Helper()
	var events []sse
	var cur sse
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		case line == "" && cur.name != "":
			events = append(events, cur)
			cur = sse{}
		}
	}
	require.NoError(t, sc.Err())
	return events
}

// startStreaming starts a run asking for its steps as server-sent events.
func (e *env) startStreaming(path string, headers ...string) (*http.Response, []sse) {
	e.t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+path, nil)
	require.NoError(e.t, err)
	req.Header.Set("Authorization", "Bearer "+e.member)
	req.Header.Set("Accept", "text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer res.Body.Close()
	if res.Header.Get("Content-Type") != "text/event-stream" {
		body, _ := io.ReadAll(res.Body)
		return res, []sse{{name: "body", data: string(body)}}
	}
	return res, readEvents(e.t, res.Body)
}

// steps are the events' names, a step event named by its step, which
// openapi.yaml lists.
func steps(t *testing.T, events []sse) []string {
	t.Helper()
	documented := loadSpec(t).Components.Schemas["RunStartStep"].Value.Properties["step"].Value.Enum
	var out []string
	for _, ev := range events {
		name := ev.name
		if ev.name == "step" {
			var s map[string]string
			require.NoError(t, json.Unmarshal([]byte(ev.data), &s))
			assert.NotEmpty(t, s["detail"], "each step says what it does")
			name = s["step"]
			assert.Contains(t, documented, name, "a step openapi.yaml names")
		}
		if len(out) == 0 || out[len(out)-1] != name {
			out = append(out, name) // output arrives in as many pieces as pip writes
		}
	}
	return out
}

func outputOf(events []sse) string {
	var text strings.Builder
	for _, ev := range events {
		if ev.name == "output" {
			var d map[string]string
			_ = json.Unmarshal([]byte(ev.data), &d)
			text.WriteString(d["text"])
		}
	}
	return text.String()
}

// A run start asked for an event stream tells each step as it begins,
// pip's own lines while the default packages install, and ends with the
// run the JSON form answers with; the next run on the thread reconnects.
func TestARunStartStreamsItsSteps(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		// pip is in every new local instance already: installing it needs no index, and pip says so.
		sb := e.createSandbox(map[string]any{"name": "With packages", "provider": "local",
			"config": map[string]any{"default_packages": []string{"pip"}, "network": map[string]any{"default": "allow"}}})
		agent := e.createAgent("Streamer")
		r := e.call("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		runs := "/api/v1/agents/" + agent["id"].(string) + "/threads/streamed/runs"

		res, events := e.startStreaming(runs)
		require.Equal(t, 200, res.StatusCode, "%v", events)
		assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		assert.Equal(t, []string{"probing", "creating", "installing", "output", "ready", "run"}, steps(t, events))
		assert.Contains(t, outputOf(events), "Requirement already satisfied: pip")

		last := events[len(events)-1]
		var streamed map[string]any
		require.NoError(t, json.Unmarshal([]byte(last.data), &streamed))
		got := e.call("GET", "/api/v1/runs/"+streamed["id"].(string), e.member, nil)
		require.Equal(t, 200, got.StatusCode)
		assert.Equal(t, got.json(t), streamed, "the run event is the run, as the API gives it")
		assert.Equal(t, true, streamed["sandbox"].(map[string]any)["created"])

		res, events = e.startStreaming(runs)
		require.Equal(t, 200, res.StatusCode)
		assert.Equal(t, []string{"reconnecting", "ready", "run"}, steps(t, events))

		// The JSON form is as it was: 201, the run, its Location; the
		// stream only when asked for above JSON.
		r = e.call("POST", runs, e.member, nil, "Accept", "application/json, text/event-stream;q=0.5")
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		assert.Equal(t, "/api/v1/runs/"+r.json(t)["id"].(string), r.Header.Get("Location"))
	})
}

// A start that fails after its first step ends the stream with the
// problem the JSON form answers with, after pip's own words.
func TestAFailedRunStartEndsItsStreamWithTheProblem(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(map[string]any{"name": "Unreachable index", "provider": "local",
			"config": map[string]any{"default_packages": []string{"no-such-package-at-all==9.9"}, "network": map[string]any{"default": "allow"}}})
		agent := e.createAgent("Unlucky")
		r := e.call("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)

		res, events := e.startStreaming("/api/v1/agents/" + agent["id"].(string) + "/threads/t/runs")
		require.Equal(t, 200, res.StatusCode)
		assert.Equal(t, []string{"probing", "creating", "installing", "output", "error"}, steps(t, events))
		assert.Contains(t, outputOf(events), "no-such-package-at-all", "pip's own lines")
		var problem map[string]any
		require.NoError(t, json.Unmarshal([]byte(events[len(events)-1].data), &problem))
		assert.Equal(t, "sandbox_unavailable", problem["reason"])
		assert.Equal(t, 409.0, problem["status"])
		assert.Contains(t, problem["detail"], "installing the default packages failed")

		// A failure before any step is an ordinary answer.
		res, events = e.startStreaming("/api/v1/agents/" + agent["id"].(string) + "/threads/bad%20thread/runs")
		assert.Equal(t, 422, res.StatusCode, "%v", events)
		assert.Contains(t, events[0].data, "thread_id")
	})
}

// An Idempotency-Key works for a streamed start as for the JSON form: a
// retry gets the same run, as JSON, whatever it accepts.
func TestAStreamedRunStartKeepsItsIdempotencyKey(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		runs := "/api/v1/agents/" + agent["id"].(string) + "/threads/once/runs"
		res, events := e.startStreaming(runs, "Idempotency-Key", "start-once")
		require.Equal(t, 200, res.StatusCode)
		require.Equal(t, "run", events[len(events)-1].name)
		var first map[string]any
		require.NoError(t, json.Unmarshal([]byte(events[len(events)-1].data), &first))

		for _, accept := range []string{"text/event-stream", "application/json"} {
			r := e.call("POST", runs, e.member, nil, "Idempotency-Key", "start-once", "Accept", accept)
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
			assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
			assert.Equal(t, first, r.json(t), "the same run")
			assert.Equal(t, "/api/v1/runs/"+first["id"].(string), r.Header.Get("Location"))
		}
	})
}
