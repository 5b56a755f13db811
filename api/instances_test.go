package api_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sandbox's page lists its live instances with their threads, and an
// admin pauses, resumes and destroys one, each audited on the sandbox.
func TestSandboxInstancesAreListedPausedResumedAndDestroyed(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		sbID := r.json(t)["id"].(string)
		agent := e.createAgent("Analyst")
		agentID := agent["id"].(string)
		r = e.send("PUT", "/api/v1/agents/"+agentID+"/sandbox", e.member, map[string]any{"sandbox_id": sbID, "tools": allAllowed})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.send("POST", "/api/v1/agents/"+agentID+"/threads/conv-7/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		ref := r.json(t)["sandbox"].(map[string]any)["instance_id"].(string)

		base := "/api/v1/sandboxes/" + sbID + "/instances"
		list := func() []any {
			r := e.call("GET", base, e.admin, nil)
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			return r.json(t)["items"].([]any)
		}
		items := list()
		require.Len(t, items, 1)
		inst := items[0].(map[string]any)
		id := inst["id"].(string)
		assert.Equal(t, "live", inst["state"])
		assert.Equal(t, ref, inst["provider_ref"])
		assert.Equal(t, false, inst["pooled"])
		assert.Equal(t, map[string]any{"agent_id": agentID, "agent_name": "Analyst", "thread_id": "conv-7"}, inst["thread"])
		assert.NotNil(t, inst["last_used_at"], "a run start is a use")

		e.call("GET", base, e.member, nil).problem(t, 403, "forbidden")
		e.call("POST", base+"/"+id+"/pause", e.member, nil).problem(t, 403, "forbidden")
		e.call("GET", "/api/v1/sandboxes/"+agentID+"/instances", e.admin, nil).problem(t, 404, "not_found")

		r = e.call("POST", base+"/"+id+"/pause", e.admin, nil)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, "paused", r.json(t)["state"])
		assert.True(t, srv.Paused(ref), "paused at the provider")
		assert.Equal(t, "paused", list()[0].(map[string]any)["state"])
		e.call("POST", base+"/"+id+"/pause", e.admin, nil).problem(t, 409, "conflict")

		r = e.call("POST", base+"/"+id+"/resume", e.admin, nil)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, "live", r.json(t)["state"])
		assert.False(t, srv.Paused(ref), "resumed at the provider")
		e.call("POST", base+"/"+id+"/resume", e.admin, nil).problem(t, 409, "conflict")

		r = e.call("DELETE", base+"/"+id, e.admin, nil)
		require.Equal(t, 204, r.StatusCode, "%s", r.body)
		assert.Empty(t, list())
		e.call("DELETE", base+"/"+id, e.admin, nil).problem(t, 404, "not_found")
		th := e.call("GET", "/api/v1/agents/"+agentID+"/threads/conv-7", e.member, nil).json(t)
		assert.Nil(t, th["instance_id"], "the thread's next run makes a new instance")

		audit := e.call("GET", "/api/v1/audit?resource_type=sandbox&resource_id="+sbID, e.admin, nil).json(t)
		var actions []string
		for _, it := range audit["items"].([]any) {
			entry := it.(map[string]any)
			if entry["outcome"] == "success" {
				actions = append(actions, entry["action"].(string))
			}
		}
		assert.Subset(t, actions, []string{"instance.pause", "instance.resume", "instance.destroy"})
	}, func(o *options) { o.kinds = kinds })
}

// The probe history says why each failed probe failed.
func TestProbeHistoryKeepsTheReasonOfAFailure(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": "wrong"})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		id := r.json(t)["id"].(string)
		r = e.send("POST", "/api/v1/sandboxes/"+id+"/probe", e.admin, nil)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		require.Equal(t, false, r.json(t)["ok"])
		history := e.send("GET", "/api/v1/sandboxes/"+id, e.admin, nil).json(t)["health"].(map[string]any)["history"].([]any)
		require.NotEmpty(t, history)
		last := history[len(history)-1].(map[string]any)
		assert.Equal(t, false, last["ok"])
		assert.Equal(t, "auth", last["reason"])
		assert.NotEmpty(t, last["detail"])
	}, func(o *options) { o.kinds = kinds })
}

// The Runs page lists the workspace's recent runs, newest first, filtered by
// agent, sandbox and state; a bad filter is 422 naming each.
func TestRecentRunsAreFilteredByAgentSandboxAndState(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		sbID := r.json(t)["id"].(string)
		bound := e.createAgent("Bound")["id"].(string)
		plain := e.createAgent("Plain")["id"].(string)
		r = e.send("PUT", "/api/v1/agents/"+bound+"/sandbox", e.member, map[string]any{"sandbox_id": sbID, "tools": allAllowed})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		start := func(agent, thread string) string {
			r := e.send("POST", "/api/v1/agents/"+agent+"/threads/"+thread+"/runs", e.member, nil)
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
			return r.json(t)["id"].(string)
		}
		first := start(bound, "a")
		second := start(bound, "a") // completes the first
		third := start(plain, "b")

		ids := func(query string) []string {
			// Sent unchecked: openapi.yaml names only the built-in providers, not echo.
			r := e.send("GET", "/api/v1/runs"+query, e.member, nil)
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			var out []string
			for _, it := range r.json(t)["items"].([]any) {
				out = append(out, it.(map[string]any)["id"].(string))
			}
			return out
		}
		assert.Equal(t, []string{third, second, first}, ids(""), "newest first")
		assert.Equal(t, []string{second, first}, ids("?agent_id="+bound))
		assert.Equal(t, []string{second, first}, ids("?sandbox_id="+sbID))
		assert.Equal(t, []string{third, second}, ids("?status=active"))
		assert.Equal(t, []string{first}, ids("?status=completed&agent_id="+bound))
		assert.Empty(t, ids("?status=expired"))
		assert.Equal(t, []string{third}, ids("?page_size=1"))

		p := e.call("GET", "/api/v1/runs?agent_id=nope&status=gone&page_size=0", e.member, nil).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"agent_id", "status", "page_size"}, fields(p))
	}, func(o *options) { o.kinds = kinds })
}

// The Runs page lists the workspace's live instances across its sandboxes,
// filtered by sandbox, agent and state, and the Sandboxes list counts each
// sandbox's; a bad filter is 422 naming each.
func TestTheWorkspacesLiveInstancesAreListedAndCounted(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		sandbox := func(name string) string {
			r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": name, "provider": "echo", "url": srv.URL, "secret": srv.Token})
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
			return r.json(t)["id"].(string)
		}
		boxA, boxB, idle := sandbox("Box A"), sandbox("Box B"), sandbox("Idle box")
		agent := func(name, sb string) string {
			id := e.createAgent(name)["id"].(string)
			r := e.send("PUT", "/api/v1/agents/"+id+"/sandbox", e.member, map[string]any{"sandbox_id": sb, "tools": allAllowed})
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			return id
		}
		analyst, coder := agent("Analyst", boxA), agent("Coder", boxB)
		for _, start := range []struct{ agent, thread string }{{analyst, "a1"}, {analyst, "a2"}, {coder, "c1"}} {
			r := e.send("POST", "/api/v1/agents/"+start.agent+"/threads/"+start.thread+"/runs", e.member, nil)
			require.Equal(t, 201, r.StatusCode, "%s", r.body)
		}

		list := func(query string) []map[string]any {
			r := e.send("GET", "/api/v1/instances"+query, e.admin, nil)
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			var out []map[string]any
			for _, it := range r.json(t)["items"].([]any) {
				out = append(out, it.(map[string]any))
			}
			return out
		}
		threads := func(items []map[string]any) []string {
			var out []string
			for _, it := range items {
				out = append(out, it["thread"].(map[string]any)["thread_id"].(string))
			}
			return out
		}
		all := list("")
		assert.ElementsMatch(t, []string{"a1", "a2", "c1"}, threads(all))
		for _, it := range all {
			want := map[string]string{analyst: "Box A", coder: "Box B"}[it["thread"].(map[string]any)["agent_id"].(string)]
			assert.Equal(t, want, it["sandbox_name"], "each names its sandbox")
		}
		assert.ElementsMatch(t, []string{"a1", "a2"}, threads(list("?sandbox_id="+boxA)))
		assert.ElementsMatch(t, []string{"c1"}, threads(list("?agent_id="+coder)))
		assert.Empty(t, list("?sandbox_id="+idle))
		assert.Empty(t, list("?sandbox_id="+coder), "not a sandbox: nothing, not an error")

		c1 := list("?agent_id=" + coder)[0]
		r := e.call("POST", "/api/v1/sandboxes/"+boxB+"/instances/"+c1["id"].(string)+"/pause", e.admin, nil)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.ElementsMatch(t, []string{"c1"}, threads(list("?state=paused")))
		assert.ElementsMatch(t, []string{"a1", "a2"}, threads(list("?state=live")))
		assert.Empty(t, list("?state=creating"))
		assert.Len(t, list("?page_size=2"), 2)

		p := e.call("GET", "/api/v1/instances?agent_id=nope&sandbox_id=x&state=asleep&page_size=0", e.admin, nil).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"agent_id", "sandbox_id", "state", "page_size"}, fields(p))
		e.call("GET", "/api/v1/instances", e.member, nil).problem(t, 403, "forbidden")

		counts := func(token string) map[string]any {
			r := e.send("GET", "/api/v1/sandboxes", token, nil)
			require.Equal(t, 200, r.StatusCode, "%s", r.body)
			out := map[string]any{}
			for _, it := range r.json(t)["items"].([]any) {
				sb := it.(map[string]any)
				out[sb["name"].(string)] = sb["live_instances"]
			}
			return out
		}
		assert.Equal(t, map[string]any{"Box A": float64(2), "Box B": float64(1), "Idle box": float64(0)}, counts(e.admin))
		assert.Equal(t, map[string]any{"Box A": nil, "Box B": nil, "Idle box": nil}, counts(e.member), "members see no instances")
	}, func(o *options) { o.kinds = kinds })
}
