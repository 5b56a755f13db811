package api_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (e *env) createAgent(name string) map[string]any {
	e.t.Helper()
	r := e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": name})
	require.Equal(e.t, 201, r.StatusCode, "%s", r.body)
	return r.json(e.t)
}

var allAllowed = map[string]any{"execute": "always_allow", "ls": "always_allow", "read_file": "always_allow",
	"write_file": "always_allow", "edit_file": "always_allow", "glob": "always_allow", "grep": "always_allow"}

func TestAgentsCRUD(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		r := e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": "Analyst", "description": "Answers\nquestions", "emoji": "📊", "color": "#1F6FEB"})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		a := r.json(t)
		assert.Equal(t, "#1f6feb", a["color"])
		assert.Nil(t, a["sandbox"], "a new agent runs without code execution")
		path := "/api/v1/agents/" + a["id"].(string)

		plain := e.createAgent("Plain")
		assert.Equal(t, "🤖", plain["emoji"], "looks have defaults")
		assert.Equal(t, "#6366f1", plain["color"])

		p := e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": "", "color": "blue", "emoji": "two words"}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"name", "color", "emoji"}, fields(p))
		e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": strings.Repeat("a", 256)}).problem(t, 422, "validation_failed")

		r = e.call("PATCH", path, e.member, map[string]any{"description": nil, "color": "#000000"})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, "", r.json(t)["description"])
		assert.Equal(t, "Analyst", r.json(t)["name"])
		e.call("PATCH", path, e.member, map[string]any{"name": nil}).problem(t, 422, "validation_failed")
		p = e.call("PATCH", path, e.member, map[string]any{"name": 5, "color": "red"}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"name", "color"}, fields(p), "a value of the wrong type hides no other")
		e.call("PATCH", path, e.member, map[string]any{"owner": "x"}).problem(t, 400, "malformed_request")
		e.call("PATCH", path, e.member, map[string]any{"name": "x"}, "If-Match", `"1"`).problem(t, 412, "precondition_failed")

		e.call("GET", path, e.foreign, nil).problem(t, 404, "not_found")
		e.call("PATCH", path, e.foreign, map[string]any{"name": "x"}).problem(t, 404, "not_found")
		e.call("DELETE", path, e.foreign, nil).problem(t, 404, "not_found")
		assert.Empty(t, e.call("GET", "/api/v1/agents", e.foreign, nil).json(t)["items"])
		assert.Len(t, e.call("GET", "/api/v1/agents?page_size=1", e.member, nil).json(t)["items"], 1)

		require.Equal(t, 204, e.call("DELETE", path, e.member, nil).StatusCode)
		e.call("GET", path, e.member, nil).problem(t, 404, "not_found")
	})
}

func TestBindings(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["opensandbox"])
		other := e.createSandbox(validSandboxes["local"])
		a := e.createAgent("Analyst")
		path := "/api/v1/agents/" + a["id"].(string) + "/sandbox"

		e.call("GET", path, e.member, nil).problem(t, 404, "not_found")
		r := e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, map[string]any{"sandbox_id": sb["id"], "name": "Team OpenSandbox", "provider": "opensandbox",
			"url": "http://sandbox.internal:8083", "tools": allAllowed, "approval": defaultRule}, r.json(t),
			"tools left out are always allowed, and approvals follow the default rule")
		got := e.call("GET", "/api/v1/agents/"+a["id"].(string), e.member, nil).json(t)
		assert.Equal(t, r.json(t), got["sandbox"], "the agent shows its binding")

		r = e.call("PUT", path, e.member, map[string]any{"sandbox_id": other["id"], "tools": map[string]any{"write_file": "needs_approval", "execute": "disabled"}})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		b := r.json(t)
		assert.Equal(t, other["id"], b["sandbox_id"], "a second binding replaces the first")
		assert.Equal(t, "needs_approval", b["tools"].(map[string]any)["write_file"])
		assert.Equal(t, "disabled", b["tools"].(map[string]any)["execute"])
		assert.Equal(t, "always_allow", b["tools"].(map[string]any)["grep"])

		users := e.call("GET", "/api/v1/sandboxes/"+other["id"].(string)+"/agents", e.member, nil).json(t)["items"].([]any)
		require.Len(t, users, 1)
		assert.Equal(t, map[string]any{"id": a["id"], "name": "Analyst", "emoji": "🤖", "color": "#6366f1"}, users[0])
		assert.Empty(t, e.call("GET", "/api/v1/sandboxes/"+sb["id"].(string)+"/agents", e.member, nil).json(t)["items"])

		p := e.call("PUT", path, e.member, map[string]any{"sandbox_id": other["id"], "tools": map[string]any{"shell": "always_allow", "grep": "sometimes"}}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"tools.shell", "tools.grep"}, fields(p))
		p = e.call("PUT", path, e.member, map[string]any{"sandbox_id": "01a22760-0000-7000-8000-000000000000"}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"sandbox_id"}, fields(p))
		foreign := e.call("POST", "/api/v1/sandboxes", e.foreign, validSandboxes["local"]).json(t)
		p = e.call("PUT", path, e.member, map[string]any{"sandbox_id": foreign["id"]}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"sandbox_id"}, fields(p), "another workspace's sandbox is never bound")
		e.call("PUT", path, e.member, map[string]any{}).problem(t, 422, "validation_failed")
		e.call("PUT", path, e.foreign, map[string]any{"sandbox_id": foreign["id"]}).problem(t, 404, "not_found")

		require.Equal(t, 204, e.call("DELETE", path, e.member, nil).StatusCode)
		e.call("GET", path, e.member, nil).problem(t, 404, "not_found")
		e.call("DELETE", path, e.member, nil).problem(t, 404, "not_found")
		assert.Nil(t, e.call("GET", "/api/v1/agents/"+a["id"].(string), e.member, nil).json(t)["sandbox"])
	})
}

// A binding is part of its agent: changing it makes a new version of the
// agent, and If-Match guards it as it guards the agent's own fields.
func TestBindingsMoveTheAgentsETag(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["local"])
		a := e.createAgent("Analyst")
		agentPath := "/api/v1/agents/" + a["id"].(string)
		path := agentPath + "/sandbox"
		etag := func() string { return e.call("GET", agentPath, e.member, nil).Header.Get("ETag") }
		read := etag()

		r := e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"]}, "If-Match", read)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.NotEqual(t, read, etag(), "binding made a new version of the agent")
		assert.Equal(t, etag(), r.Header.Get("ETag"))
		assert.Equal(t, etag(), e.call("GET", path, e.member, nil).Header.Get("ETag"))

		// Someone who read the agent before that binding cannot undo it unawares.
		e.call("PATCH", agentPath, e.member, map[string]any{"description": "x"}, "If-Match", read).problem(t, 412, "precondition_failed")
		e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"], "tools": map[string]any{"execute": "disabled"}}, "If-Match", read).
			problem(t, 412, "precondition_failed")
		e.call("DELETE", path, e.member, nil, "If-Match", read).problem(t, 412, "precondition_failed")
		current := etag()
		r = e.call("DELETE", path, e.member, nil, "If-Match", current)
		require.Equal(t, 204, r.StatusCode)
		assert.NotEqual(t, current, etag(), "unbinding made a new version too")
		assert.Equal(t, etag(), r.Header.Get("ETag"), "and says which")

		// Deleting a sandbox detaches its agents: a new version of each.
		require.Equal(t, 200, e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"]}).StatusCode)
		bound := etag()
		require.Equal(t, 204, e.call("DELETE", "/api/v1/sandboxes/"+sb["id"].(string)+"?detach_agents=true", e.admin, nil).StatusCode)
		assert.NotEqual(t, bound, etag(), "a detached agent has a new version")
	})
}

func TestConcurrentBindsLeaveOneBinding(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		a := e.createAgent("Racer")
		var ids []any
		for i := 0; i < 4; i++ {
			ids = append(ids, e.createSandbox(map[string]any{"name": "sb" + string(rune('a'+i)), "provider": "local"})["id"])
		}
		var wg sync.WaitGroup
		for i := 0; i < 16; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.call("PUT", "/api/v1/agents/"+a["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": ids[i%len(ids)]})
				assert.Equal(t, 200, r.StatusCode, "%s", r.body)
			}()
		}
		wg.Wait()
		sqlDB, err := e.db.SQL()
		require.NoError(t, err)
		var n int
		require.NoError(t, sqlDB.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM bindings").Scan(&n))
		assert.Equal(t, 1, n, "one binding per agent, whatever the race")
	})
}

func TestDeleteSandboxInUse(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["local"])
		path := "/api/v1/sandboxes/" + sb["id"].(string)
		a, b := e.createAgent("Analyst"), e.createAgent("Writer")
		for _, ag := range []map[string]any{a, b} {
			require.Equal(t, 200, e.call("PUT", "/api/v1/agents/"+ag["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]}).StatusCode)
		}
		p := e.call("DELETE", path, e.admin, nil).problem(t, 409, "sandbox_in_use")
		assert.Equal(t, "Sandbox is used by 2 agent(s) — detach it first", p["detail"])
		agents := p["agents"].([]any)
		require.Len(t, agents, 2)
		assert.Equal(t, "Analyst", agents[0].(map[string]any)["name"])
		assert.Equal(t, a["id"], agents[0].(map[string]any)["id"])
		assert.Equal(t, 200, e.call("GET", path, e.admin, nil).StatusCode, "nothing was deleted")

		e.call("DELETE", path+"?detach_agents=maybe", e.admin, nil).problem(t, 422, "validation_failed")
		require.Equal(t, 204, e.call("DELETE", path+"?detach_agents=true", e.admin, nil).StatusCode)
		e.call("GET", path, e.admin, nil).problem(t, 404, "not_found")
		for _, ag := range []map[string]any{a, b} {
			got := e.call("GET", "/api/v1/agents/"+ag["id"].(string), e.member, nil).json(t)
			assert.Nil(t, got["sandbox"], "detached agents run on without code execution")
		}
	})
}

// defaultRule is a binding's approval rule when it says none.
var defaultRule = map[string]any{"granted_by": "anyone", "with_call": true}

// An approval rule other than the default is an admin's: a member can
// neither set one nor change or remove a binding that has one, so the
// token that makes an agent's calls cannot loosen who grants them. A bad
// rule is refused whole, with every bad field named.
func TestABindingsApprovalRuleIsAnAdmins(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		sb := e.createSandbox(validSandboxes["local"])
		a := e.createAgent("Analyst")
		path := "/api/v1/agents/" + a["id"].(string) + "/sandbox"
		strict := map[string]any{"granted_by": "admin", "with_call": false}

		e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"], "approval": map[string]any{"granted_by": "someone_else"}}).
			problem(t, 403, "forbidden")
		r := e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"], "approval": defaultRule})
		require.Equal(t, 200, r.StatusCode, "a member may bind with the default rule: %s", r.body)
		r = e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"], "tools": map[string]any{"write_file": "needs_approval"},
			"approval": strict})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, strict, r.json(t)["approval"])
		assert.Equal(t, strict, e.call("GET", "/api/v1/agents/"+a["id"].(string), e.member, nil).json(t)["sandbox"].(map[string]any)["approval"],
			"the agent shows its binding's rule")

		p := e.call("PUT", path, e.member, map[string]any{"sandbox_id": sb["id"], "tools": map[string]any{"write_file": "always_allow"}}).
			problem(t, 403, "forbidden")
		assert.Contains(t, p["detail"], "only an admin token changes or removes its sandbox binding")
		e.call("DELETE", path, e.member, nil).problem(t, 403, "forbidden")
		b := e.call("GET", path, e.member, nil).json(t)
		assert.Equal(t, strict, b["approval"], "nothing changed")
		assert.Equal(t, "needs_approval", b["tools"].(map[string]any)["write_file"])

		p = e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"], "tools": map[string]any{"write_file": "sometimes"},
			"approval": map[string]any{"granted_by": "the_boss", "with_call": true}}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"tools.write_file", "approval.granted_by"}, fields(p))
		e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"], "approval": map[string]any{"granted_by": ""}}).
			problem(t, 422, "validation_failed")
		e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"], "approval": map[string]any{"with_call": "no"}}).
			problem(t, 422, "validation_failed")
		e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"], "approval": map[string]any{"who": "admin"}}).
			problem(t, 400, "malformed_request")
		assert.Equal(t, strict, e.call("GET", path, e.member, nil).json(t)["approval"], "a refused binding saves nothing")

		r = e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"], "approval": map[string]any{"granted_by": "someone_else"}})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, map[string]any{"granted_by": "someone_else", "with_call": true}, r.json(t)["approval"], "what the rule leaves out is the default")
		r = e.call("PUT", path, e.admin, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, defaultRule, r.json(t)["approval"], "a binding without a rule has the default, as its tools do")
		require.Equal(t, 204, e.call("DELETE", path, e.member, nil).StatusCode, "the default rule binds no one")

		var refusals []string
		for _, entry := range e.audit("?resource_type=binding&outcome=denied") {
			refusals = append(refusals, entry["action"].(string)+" by "+entry["actor"].(map[string]any)["token_name"].(string))
		}
		assert.Equal(t, []string{"binding.delete by member@default", "binding.put by member@default", "binding.put by member@default"}, refusals)
	})
}
