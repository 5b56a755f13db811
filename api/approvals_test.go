package api_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A REST call needing approval without the header waits as a pending
// approval; a person's decision over the API lets its repeat through once.
// The header still approves a call at once.
func TestApprovalsOverHTTP(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(map[string]any{"write_file": "needs_approval"})
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)

		p := e.call("PUT", base+"/files?path=a.txt", e.member, "hello").problem(t, 428, "approval_required")
		id, _ := p["approval_id"].(string)
		require.NotEmpty(t, id)
		assert.NotContains(t, p["detail"], "Auxilia-Approval", "the refusal points at the console")
		list := e.call("GET", base+"/approvals", e.member, nil).json(t)["items"].([]any)
		require.Len(t, list, 1)
		a := list[0].(map[string]any)
		assert.Equal(t, id, a["id"])
		assert.Equal(t, "pending", a["status"])
		assert.Equal(t, map[string]any{"path": "a.txt", "content": "hello"}, a["arguments"])
		assert.Equal(t, "api", a["via"])
		assert.Nil(t, a["decided_by"])

		decision := base + "/approvals/" + id + "/decision"
		pf := e.call("POST", decision, e.admin, map[string]any{"decision": "maybe"}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"decision"}, fields(pf))
		decided := e.call("POST", decision, e.admin, map[string]any{"decision": "approve"}).json(t)
		assert.Equal(t, "approved", decided["status"])
		assert.NotEmpty(t, decided["decided_by"])
		assert.NotEmpty(t, decided["decided_at"])
		e.call("POST", decision, e.admin, map[string]any{"decision": "deny"}).problem(t, 409, "conflict")
		e.call("POST", base+"/approvals/"+run["id"].(string)+"/decision", e.admin, map[string]any{"decision": "deny"}).problem(t, 404, "not_found")

		assert.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt", e.member, "hello").StatusCode, "the approved call goes ahead")
		used := e.call("GET", base+"/approvals", e.member, nil).json(t)["items"].([]any)[0].(map[string]any)
		assert.NotNil(t, used["used_at"])

		id = e.call("PUT", base+"/files?path=b.txt", e.member, "no").problem(t, 428, "approval_required")["approval_id"].(string)
		e.call("POST", base+"/approvals/"+id+"/decision", e.admin, map[string]any{"decision": "deny"}).json(t)
		e.call("PUT", base+"/files?path=b.txt", e.member, "no").problem(t, 403, "approval_denied")

		assert.Equal(t, 201, e.call("PUT", base+"/files?path=c.txt", e.member, "x", "Auxilia-Approval", "granted").StatusCode)
	})
}

// An MCP client that cannot ask its person is told to have the call
// approved in the console: the call waits there, and once a person
// approves it, the model's repeat goes ahead.
func TestMCPCallWaitsForTheConsole(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(map[string]any{"write_file": "needs_approval"})
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp/agents/" + agent["id"].(string),
			HTTPClient: &http.Client{Transport: bearer(e.member)}}, nil)
		require.NoError(t, err)
		defer session.Close()
		args := map[string]any{"path": "from-mcp.txt", "content": "written by the model"}
		call := func() *mcp.CallToolResult {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: args})
			require.NoError(t, err)
			return res
		}
		res := call()
		require.True(t, res.IsError)
		text := res.Content[0].(*mcp.TextContent).Text
		assert.Contains(t, text, "a person must approve the call in the Auxilia console")
		assert.Contains(t, text, "then repeat this call")

		runs := e.call("GET", "/api/v1/agents/"+agent["id"].(string)+"/threads/"+session.ID()+"/runs", e.member, nil).json(t)["items"].([]any)
		require.Len(t, runs, 1)
		base := "/api/v1/runs/" + runs[0].(map[string]any)["id"].(string)
		pending := e.call("GET", base+"/approvals", e.admin, nil).json(t)["items"].([]any)
		require.Len(t, pending, 1)
		a := pending[0].(map[string]any)
		assert.Equal(t, "mcp", a["via"])
		assert.Equal(t, args, a["arguments"])
		assert.Equal(t, "pending", a["status"])
		assert.True(t, call().IsError, "no call before a person decides")

		e.call("POST", base+"/approvals/"+a["id"].(string)+"/decision", e.admin, map[string]any{"decision": "approve"}).json(t)
		res = call()
		require.False(t, res.IsError, "%v", res.Content)
		assert.Equal(t, "/workspace/from-mcp.txt", res.StructuredContent.(map[string]any)["path"])
		assert.True(t, call().IsError, "an approval is used once")
	})
}

// setRule gives the agent's binding an approval rule, as an admin.
func (e *env) setRule(agent, sandbox map[string]any, tools, rule map[string]any) {
	e.t.Helper()
	r := e.call("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.admin,
		map[string]any{"sandbox_id": sandbox["id"], "tools": tools, "approval": rule})
	require.Equal(e.t, 200, r.StatusCode, "%s", r.body)
}

// Under granted_by someone_else the token that made a call cannot approve
// it, however it is named; another token can. Under admin only an admin
// can. The list says so to whoever reads it, a refused approval is 403
// grant_not_allowed and audited, and anyone may deny.
func TestWhoMayApproveOverHTTP(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		twin := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "member@default", "role": "member"}).json(t)["token"].(string)
		tools := map[string]any{"write_file": "needs_approval"}
		agent, sb := e.boundAgent(tools)
		e.setRule(agent, sb, tools, map[string]any{"granted_by": "someone_else"})
		base := e.startRun(agent, "t")

		id := e.call("PUT", base+"/files?path=a.txt", e.member, "hello").problem(t, 428, "approval_required")["approval_id"].(string)
		canApprove := func(tok string) any {
			items := e.call("GET", base+"/approvals", tok, nil).json(t)["items"].([]any)
			require.Len(t, items, 1)
			a := items[0].(map[string]any)
			assert.Equal(t, "someone_else", a["granted_by"])
			return a["can_approve"]
		}
		assert.Equal(t, false, canApprove(e.member), "the token that made the call")
		assert.Equal(t, true, canApprove(twin), "another token of the same name")
		assert.Equal(t, true, canApprove(e.admin))

		decision := base + "/approvals/" + id + "/decision"
		p := e.call("POST", decision, e.member, map[string]any{"decision": "approve"}).problem(t, 403, "grant_not_allowed")
		assert.Equal(t, "someone_else", p["granted_by"])
		e.call("PUT", base+"/files?path=a.txt", e.member, "hello").problem(t, 428, "approval_required")
		decided := e.call("POST", decision, twin, map[string]any{"decision": "approve"}).json(t)
		assert.Equal(t, "approved", decided["status"])
		assert.Equal(t, false, decided["can_approve"], "a decided approval is approved no more")
		assert.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt", e.member, "hello").StatusCode)

		e.setRule(agent, sb, tools, map[string]any{"granted_by": "admin"})
		id = e.call("PUT", base+"/files?path=b.txt", e.member, "hello").problem(t, 428, "approval_required")["approval_id"].(string)
		decision = base + "/approvals/" + id + "/decision"
		e.call("POST", decision, twin, map[string]any{"decision": "approve"}).problem(t, 403, "grant_not_allowed")
		assert.Equal(t, "denied", e.call("POST", decision, twin, map[string]any{"decision": "deny"}).json(t)["status"],
			"anyone may deny: a denial lets nothing run")
		id = e.call("PUT", base+"/files?path=c.txt", e.member, "hello").problem(t, 428, "approval_required")["approval_id"].(string)
		assert.Equal(t, "approved", e.call("POST", base+"/approvals/"+id+"/decision", e.admin, map[string]any{"decision": "approve"}).json(t)["status"])

		var refused []string
		for _, entry := range e.audit("?action=tool.approve&outcome=denied") {
			refused = append(refused, entry["actor"].(map[string]any)["token_id"].(string)+": "+entry["detail"].(string))
		}
		me := func(tok string) string { return e.call("GET", "/api/v1/me", tok, nil).json(t)["token_id"].(string) }
		require.Len(t, refused, 3)
		assert.Contains(t, refused[0], me(twin)+": a person denied write_file b.txt")
		assert.Equal(t, me(twin)+": This agent's approvals are granted by an admin token: an admin must approve this call.", refused[1])
		assert.Contains(t, refused[2], me(e.member)+": This call was made with your token")
	})
}

// Where the binding's rule does not let the caller's own word count, the
// header does not grant the call: it waits in the console (and the refused
// word is audited); a terminal and a file replaced, approved as they are
// made, are refused outright.
func TestTheApprovalHeaderCountsOnlyWhereTheRuleSays(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		tools := map[string]any{"write_file": "needs_approval", "execute": "needs_approval"}
		agent, sb := e.boundAgent(tools)
		base := e.startRun(agent, "t")
		require.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt", e.member, "v1", "Auxilia-Approval", "granted").StatusCode,
			"by default the header grants the call")

		e.setRule(agent, sb, tools, map[string]any{"with_call": false})
		p := e.call("PUT", base+"/files?path=b.txt", e.admin, "v1", "Auxilia-Approval", "granted").problem(t, 428, "approval_required")
		assert.Equal(t, false, p["grant_with_call"])
		assert.Equal(t, "anyone", p["granted_by"])
		assert.Contains(t, p["detail"], "An approval given with the call does not count: this agent's approvals are decided in the console only.")
		id := p["approval_id"].(string)
		e.call("POST", base+"/approvals/"+id+"/decision", e.admin, map[string]any{"decision": "approve"}).json(t)
		assert.Equal(t, 201, e.call("PUT", base+"/files?path=b.txt", e.admin, "v1", "Auxilia-Approval", "granted").StatusCode,
			"the decision made in the console grants the repeat")

		p = e.call("PUT", base+"/files?path=a.txt&overwrite=true", e.admin, "v2", "Auxilia-Approval", "granted").problem(t, 428, "approval_required")
		assert.Equal(t, false, p["grant_with_call"])
		assert.Nil(t, p["approval_id"], "a file replaced is approved as it is made, never kept pending")
		p = e.call("POST", base+"/terminal-tickets", e.admin, nil, "Auxilia-Approval", "granted").problem(t, 428, "approval_required")
		assert.Equal(t, false, p["grant_with_call"])
		e.call("GET", base+"/terminal", e.admin, nil, append([]string{"Auxilia-Approval", "granted"}, upgradeHeaders...)...).problem(t, 428, "approval_required")

		e.setRule(agent, sb, tools, map[string]any{"granted_by": "admin"})
		p = e.call("PUT", base+"/files?path=a.txt&overwrite=true", e.member, "v2", "Auxilia-Approval", "granted").problem(t, 428, "approval_required")
		assert.Equal(t, false, p["grant_with_call"], "a member's header does not count where an admin grants")
		assert.Equal(t, 201, e.call("PUT", base+"/files?path=a.txt&overwrite=true", e.admin, "v2", "Auxilia-Approval", "granted").StatusCode)
		require.Equal(t, 201, e.call("POST", base+"/terminal-tickets", e.admin, nil, "Auxilia-Approval", "granted").StatusCode)
		p = e.call("POST", base+"/terminal-tickets", e.member, nil).problem(t, 428, "approval_required")
		assert.Equal(t, false, p["grant_with_call"], "the refusal tells the console not to offer the header")

		var refused []string
		for _, entry := range e.audit("?action=tool.approve&outcome=denied") {
			refused = append(refused, entry["detail"].(string))
		}
		assert.Equal(t, []string{`the approval given with the call of write_file b.txt for agent "Runner" (over api) did not count: ` +
			"this agent's approvals are decided in the console only"}, refused)
	}, shortGrace)
}

// An MCP client that can ask its person is not asked where that person's
// answer would not count (it is the caller's own): the call waits in the
// console for someone else.
func TestAnAskingMCPClientWaitsForSomeoneElse(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		tools := map[string]any{"write_file": "needs_approval"}
		agent, sb := e.boundAgent(tools)
		e.setRule(agent, sb, tools, map[string]any{"granted_by": "someone_else"})
		ctx := context.Background()
		asked := 0
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked++
				return &mcp.ElicitResult{Action: "accept"}, nil
			}})
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp/agents/" + agent["id"].(string),
			HTTPClient: &http.Client{Transport: bearer(e.member)}}, nil)
		require.NoError(t, err)
		defer session.Close()
		args := map[string]any{"path": "from-mcp.txt", "content": "written by the model"}
		call := func() *mcp.CallToolResult {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: args})
			require.NoError(t, err)
			return res
		}
		res := call()
		require.True(t, res.IsError)
		assert.Zero(t, asked, "the client's person is not asked")
		assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "from another token than the one that made the call")

		runs := e.call("GET", "/api/v1/agents/"+agent["id"].(string)+"/threads/"+session.ID()+"/runs", e.member, nil).json(t)["items"].([]any)
		require.Len(t, runs, 1)
		base := "/api/v1/runs/" + runs[0].(map[string]any)["id"].(string)
		pending := e.call("GET", base+"/approvals", e.member, nil).json(t)["items"].([]any)
		require.Len(t, pending, 1)
		a := pending[0].(map[string]any)
		assert.Equal(t, "mcp", a["via"])
		assert.Equal(t, false, a["can_approve"])
		e.call("POST", base+"/approvals/"+a["id"].(string)+"/decision", e.member, map[string]any{"decision": "approve"}).problem(t, 403, "grant_not_allowed")
		e.call("POST", base+"/approvals/"+a["id"].(string)+"/decision", e.admin, map[string]any{"decision": "approve"}).json(t)
		res = call()
		require.False(t, res.IsError, "%v", res.Content)
		assert.Zero(t, asked)
	})
}
