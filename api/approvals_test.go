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
