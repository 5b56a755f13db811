package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A start refused because the agent's sandbox fails its probe is kept with
// its thread (made by the refusal when new): the thread lists it with the
// notice its caller got, when, and the sandbox by name and id, even once
// that sandbox is deleted.
func TestARefusedStartIsKeptWithItsThread(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(map[string]any{"name": "Down box", "provider": "opensandbox", "url": "127.0.0.1:1"})
		agent := e.createAgent("Stranded")
		agentPath := "/api/v1/agents/" + agent["id"].(string)
		r := e.call("PUT", agentPath+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)

		before := time.Now().Add(-time.Second)
		p := e.call("POST", agentPath+"/threads/conv-9/runs", e.member, nil).problem(t, 409, "sandbox_unavailable")
		failures := e.call("GET", agentPath+"/threads/conv-9/start-failures", e.member, nil)
		require.Equal(t, 200, failures.StatusCode, "%s", failures.body)
		items := failures.json(t)["items"].([]any)
		require.Len(t, items, 1)
		got := items[0].(map[string]any)
		assert.Equal(t, p["detail"], got["notice"], "the notice the caller was shown")
		assert.Equal(t, sb["id"], got["sandbox_id"])
		assert.Equal(t, "Down box", got["sandbox_name"])
		assert.Equal(t, p["probe_reason"], got["reason"])
		at, err := time.Parse(time.RFC3339Nano, got["failed_at"].(string))
		require.NoError(t, err)
		assert.True(t, at.After(before) && at.Before(time.Now().Add(time.Second)), "failed_at %s", at)

		// The thread exists: it has no runs, one refused start.
		assert.Equal(t, 200, e.call("GET", agentPath+"/threads/conv-9", e.member, nil).StatusCode)
		assert.Empty(t, e.call("GET", agentPath+"/threads/conv-9/runs", e.member, nil).json(t)["items"])

		// A second refusal is listed after the first; a deleted sandbox keeps its name there.
		e.call("POST", agentPath+"/threads/conv-9/runs", e.member, nil).problem(t, 409, "sandbox_unavailable")
		del := e.call("DELETE", "/api/v1/sandboxes/"+sb["id"].(string)+"?detach_agents=true", e.admin, nil)
		require.Equal(t, 204, del.StatusCode, "%s", del.body)
		items = e.call("GET", agentPath+"/threads/conv-9/start-failures?page_size=1", e.member, nil).json(t)["items"].([]any)
		require.Len(t, items, 1)
		assert.Equal(t, got["id"], items[0].(map[string]any)["id"], "oldest first")
		all := e.call("GET", agentPath+"/threads/conv-9/start-failures", e.member, nil).json(t)["items"].([]any)
		require.Len(t, all, 2)
		assert.Equal(t, "Down box", all[1].(map[string]any)["sandbox_name"])

		// Another workspace sees nothing of it; a thread never started is not found.
		e.call("GET", agentPath+"/threads/conv-9/start-failures", e.foreign, nil).problem(t, 404, "not_found")
		e.call("GET", agentPath+"/threads/never/start-failures", e.member, nil).problem(t, 404, "not_found")
	})
}

// A start that succeeds, or fails for another reason, keeps nothing.
func TestOnlyRefusedStartsAreKept(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		agentPath := "/api/v1/agents/" + agent["id"].(string)
		require.Equal(t, 201, e.call("POST", agentPath+"/threads/fine/runs", e.member, nil).StatusCode)
		assert.Empty(t, e.call("GET", agentPath+"/threads/fine/start-failures", e.member, nil).json(t)["items"])
	})
}

// Deleting a sandbox ends the runs open on it: the run says so (status and
// notice), and its tools answer run_not_active rather than working on.
func TestDeletingASandboxEndsItsOpenRuns(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, sb := e.boundAgent(nil)
		r := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/open/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		runPath := "/api/v1/runs/" + r.json(t)["id"].(string)

		del := e.call("DELETE", "/api/v1/sandboxes/"+sb["id"].(string)+"?detach_agents=true", e.admin, nil)
		require.Equal(t, 204, del.StatusCode, "%s", del.body)

		run := e.call("GET", runPath, e.member, nil).json(t)
		assert.Equal(t, "completed", run["status"])
		assert.NotNil(t, run["ended_at"])
		notice, _ := run["notice"].(string)
		assert.True(t, strings.HasPrefix(notice, "Sandbox '"+sb["name"].(string)+"' was deleted"), "notice %q", notice)
		assert.Equal(t, true, run["sandbox"].(map[string]any)["deleted"], "the run names its sandbox as deleted")
		e.call("POST", runPath+"/execute", e.member, map[string]any{"command": "echo hi"}).problem(t, 409, "run_not_active")

		entries := e.audit("?action=sandbox.delete")
		require.NotEmpty(t, entries)
		assert.Contains(t, entries[0]["detail"], "ended 1 run(s)")
	})
}

// Taking an agent's sandbox away, or moving it to another, ends its open
// runs the same way: their instances were released, so they cannot go on.
func TestUnbindingOrMovingAnAgentEndsItsOpenRuns(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, sb := e.boundAgent(nil)
		agentPath := "/api/v1/agents/" + agent["id"].(string)
		start := func(thread string) string {
			r := e.call("POST", agentPath+"/threads/"+thread+"/runs", e.member, nil)
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
			return "/api/v1/runs/" + r.json(t)["id"].(string)
		}
		ended := func(runPath, prefix string) {
			run := e.call("GET", runPath, e.member, nil).json(t)
			assert.Equal(t, "completed", run["status"])
			assert.NotNil(t, run["ended_at"])
			notice, _ := run["notice"].(string)
			assert.True(t, strings.HasPrefix(notice, prefix), "notice %q", notice)
			e.call("POST", runPath+"/execute", e.member, map[string]any{"command": "echo hi"}).problem(t, 409, "run_not_active")
		}

		other := e.createSandbox(map[string]any{"name": "Other box", "provider": "local"})
		moved := start("moved")
		r := e.call("PUT", agentPath+"/sandbox", e.member, map[string]any{"sandbox_id": other["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		ended(moved, "Agent 'Runner' was moved from sandbox '"+sb["name"].(string)+"' to 'Other box'")

		unbound := start("unbound")
		require.Equal(t, 204, e.call("DELETE", agentPath+"/sandbox", e.member, nil).StatusCode)
		ended(unbound, "Agent 'Runner' no longer has sandbox 'Other box'")
		entries := e.audit("?action=binding.delete")
		require.NotEmpty(t, entries)
		assert.Contains(t, entries[0]["detail"], "ended 1 run(s)")
	})
}
