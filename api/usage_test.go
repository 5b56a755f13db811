package api_test

import (
	"encoding/csv"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func usageRows(t *testing.T, r response) []map[string]any {
	t.Helper()
	require.Equal(t, 200, r.StatusCode, "%s", r.body)
	var out []map[string]any
	for _, row := range r.json(t)["rows"].([]any) {
		out = append(out, row.(map[string]any))
	}
	return out
}

// A thread's run meters its instance: admins see it by thread, sandbox
// and provider, members only the workspace's totals, other workspaces
// nothing; the same rows come as CSV.
func TestUsageReportsARunsInstance(t *testing.T) {
	openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.PlainBodyDecoder)
	eachDB(t, func(t *testing.T, e *env) {
		before := time.Now().UTC()
		agent, sb := e.boundAgent(nil)
		r := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/conv-1/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		span := "&from=" + url.QueryEscape(before.Add(-time.Minute).Format(time.RFC3339Nano)) +
			"&to=" + url.QueryEscape(time.Now().UTC().Add(time.Hour).Format(time.RFC3339Nano))

		byThread := usageRows(t, e.call("GET", "/api/v1/usage?group_by=thread&granularity=hour"+span, e.admin, nil))
		require.Len(t, byThread, 1)
		assert.Equal(t, "conv-1", byThread[0]["name"])
		assert.Equal(t, 1.0, byThread[0]["instances_created"])
		running := byThread[0]["running_seconds"].(float64)
		assert.Greater(t, running, 0.0)
		assert.Less(t, running, time.Since(before).Seconds(), "no more than the test has lasted")
		assert.Nil(t, byThread[0]["estimated_cost"], "no rates, no estimate")

		bySandbox := usageRows(t, e.call("GET", "/api/v1/usage?group_by=sandbox"+span, e.admin, nil))
		require.Len(t, bySandbox, 1)
		assert.Equal(t, sb["id"], bySandbox[0]["key"])
		assert.Equal(t, sb["name"], bySandbox[0]["name"])
		byProvider := usageRows(t, e.call("GET", "/api/v1/usage?group_by=provider"+span, e.admin, nil))
		require.Len(t, byProvider, 1)
		assert.Equal(t, "local", byProvider[0]["key"])

		totals := usageRows(t, e.call("GET", "/api/v1/usage?granularity=day"+span, e.member, nil))
		require.Len(t, totals, 1)
		assert.Empty(t, totals[0]["key"], "a total names no group")
		assert.Equal(t, 1.0, totals[0]["instances_created"])
		e.call("GET", "/api/v1/usage?group_by=agent"+span, e.member, nil).problem(t, 403, "forbidden")
		assert.Empty(t, usageRows(t, e.call("GET", "/api/v1/usage?group_by=thread"+span, e.foreign, nil)), "another workspace")

		csvAnswer := e.call("GET", "/api/v1/usage?group_by=thread"+span, e.admin, nil, "Accept", "text/csv")
		require.Equal(t, 200, csvAnswer.StatusCode, "%s", csvAnswer.body)
		assert.True(t, strings.HasPrefix(csvAnswer.Header.Get("Content-Type"), "text/csv"))
		lines, err := csv.NewReader(strings.NewReader(string(csvAnswer.body))).ReadAll()
		require.NoError(t, err)
		require.Len(t, lines, 2)
		assert.Equal(t, []string{"period_start", "period_end", "group_by", "key", "name", "running_seconds", "paused_seconds",
			"instances_created", "instances_failed", "instances_replaced", "commands", "command_seconds", "terminal_seconds",
			"kept_byte_days", "estimated_cost", "currency"}, lines[0])
		assert.Equal(t, "thread", lines[1][2])
		assert.Equal(t, "conv-1", lines[1][4])
		assert.Equal(t, "1", lines[1][7])
		assert.Equal(t, "0", lines[1][10], "no command yet")
		assert.Equal(t, "USD", lines[1][15])
	})
}

// The run's commands and its terminal are metered: each command counted
// with no more seconds than it took to answer, the terminal from opening
// to closing.
func TestUsageMetersARunsCommandsAndTerminal(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		before := time.Now().UTC()
		agent, _ := e.boundAgent(nil)
		run := e.startRun(agent, "metered")
		var took time.Duration
		for _, cmd := range []string{"sleep 0.3", "true"} {
			sent := time.Now()
			r := e.call("POST", run+"/execute", e.member, map[string]any{"command": cmd})
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			took += time.Since(sent)
		}
		opened := time.Now()
		term := e.dialTerminal(run+"/terminal", "Authorization", "Bearer "+e.member)
		term.typeKeys("echo up\r")
		term.expect("up")
		term.typeKeys("exit\r")
		term.ended()
		open := time.Since(opened)
		span := "&from=" + url.QueryEscape(before.Add(-time.Minute).Format(time.RFC3339Nano)) +
			"&to=" + url.QueryEscape(time.Now().UTC().Add(time.Hour).Format(time.RFC3339Nano))

		require.Eventually(t, func() bool {
			rows := usageRows(t, e.call("GET", "/api/v1/usage?group_by=thread"+span, e.admin, nil))
			return len(rows) == 1 && rows[0]["terminal_seconds"].(float64) > 0
		}, 10*time.Second, 50*time.Millisecond, "the terminal's closing is metered")
		rows := usageRows(t, e.call("GET", "/api/v1/usage?group_by=thread"+span, e.admin, nil))
		assert.Equal(t, "metered", rows[0]["name"])
		assert.Equal(t, 2.0, rows[0]["commands"])
		assert.GreaterOrEqual(t, rows[0]["command_seconds"].(float64), 0.3, "the sleep at least")
		assert.Less(t, rows[0]["command_seconds"].(float64), took.Seconds(), "no more than the calls took")
		assert.Less(t, rows[0]["terminal_seconds"].(float64), open.Seconds()+1)
		assert.Equal(t, 0.0, rows[0]["kept_byte_days"])
	})
}

// Each bad parameter is named in one 400.
func TestUsageRefusesBadParametersNamingEach(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		p := e.call("GET", "/api/v1/usage?from=yesterday&to=2026-01-01T00:00:00Z&group_by=team&granularity=week", e.admin, nil).
			problem(t, 400, "malformed_request")
		assert.ElementsMatch(t, []string{"from", "group_by", "granularity"}, fields(p))

		p = e.call("GET", "/api/v1/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z", e.admin, nil).problem(t, 400, "malformed_request")
		assert.Equal(t, []string{"to"}, fields(p))
		p = e.call("GET", "/api/v1/usage?granularity=hour&from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z", e.admin, nil).
			problem(t, 400, "malformed_request")
		assert.Equal(t, []string{"from"}, fields(p), "too long a span for hours")
		e.call("GET", "/api/v1/usage", "", nil).problem(t, 401, "unauthorized")
	})
}
