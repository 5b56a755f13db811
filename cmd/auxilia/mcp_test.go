package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withHeaders sends a token, and a thread when one is named, with every request.
type withHeaders struct {
	token, thread string
}

func (h withHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	if h.thread != "" {
		r.Header.Set("Auxilia-Thread", h.thread)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// mcpClient is the Go SDK's client connected to an agent's endpoint.
type mcpClient struct {
	*mcp.ClientSession
	mu       sync.Mutex
	progress []string
}

// connectMCP opens an MCP session on the agent's endpoint; elicit, when
// set, answers the server's requests for approval ("": asking fails).
func connectMCP(t *testing.T, srv *server, agentID, thread string, elicit func(*mcp.ElicitRequest) string) *mcpClient {
	t.Helper()
	c := &mcpClient{}
	opts := &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.progress = append(c.progress, req.Params.Message)
	}}
	if elicit != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			action := elicit(req)
			if action == "" {
				return nil, errors.New("the person could not be reached")
			}
			return &mcp.ElicitResult{Action: action}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "auxilia-e2e", Version: "1"}, opts)
	transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/agents/" + agentID,
		HTTPClient: &http.Client{Transport: withHeaders{token: adminToken, thread: thread}}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	session, err := client.Connect(ctx, transport, nil)
	require.NoError(t, err)
	c.ClientSession = session
	t.Cleanup(func() { _ = session.Close() })
	return c
}

// call calls a tool and returns its structured answer, or its error text.
func (c *mcpClient) call(t *testing.T, tool string, args map[string]any) (map[string]any, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{"progressToken": "p-" + tool}})
	require.NoError(t, err)
	if res.IsError {
		return nil, res.Content[0].(*mcp.TextContent).Text
	}
	var out map[string]any
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &out))
	return out, ""
}

func (c *mcpClient) toolNames(t *testing.T) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// bindTools sets the agent's tool policies on its sandbox.
func bindTools(t *testing.T, srv *server, agentID string, tools map[string]any) {
	t.Helper()
	_, ag := get(t, srv.URL+"/api/v1/agents/"+agentID, adminToken)
	sandboxID := ag["sandbox"].(map[string]any)["sandbox_id"]
	status, b := post(t, "PUT", srv.URL+"/api/v1/agents/"+agentID+"/sandbox", adminToken, map[string]any{"sandbox_id": sandboxID, "tools": tools})
	require.Equal(t, 200, status, "%v", b)
}

// auditDetails are the details of the audit entries of an action, newest first.
func auditDetails(t *testing.T, srv *server, action string) []string {
	t.Helper()
	status, page := get(t, srv.URL+"/api/v1/audit?page_size=200", adminToken)
	require.Equal(t, 200, status, "%v", page)
	var out []string
	for _, e := range page["items"].([]any) {
		if entry := e.(map[string]any); entry["action"] == action {
			out = append(out, entry["outcome"].(string)+": "+entry["detail"].(string))
		}
	}
	return out
}

// The real binary with the local provider, used through the Go SDK's MCP client.
func TestMCPWithTheGoSDKClient(t *testing.T) {
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Local MCP", "provider": "local", "config": map[string]any{"timeout": 5}})

	a := connectMCP(t, srv, agent, "conversation-a", nil)
	assert.ElementsMatch(t, run.ToolNames(), a.toolNames(t), "every tool of the table")

	out, refusal := a.call(t, "execute", map[string]any{"command": "python3 -c 'print(6*7)'"})
	require.Empty(t, refusal)
	assert.Equal(t, map[string]any{"exit_code": float64(0), "output": "42\n", "truncated": false, "duration_ms": out["duration_ms"]}, out)
	a.mu.Lock()
	assert.Equal(t, "42\n", strings.Join(a.progress, ""), "the output streams as progress notifications")
	a.mu.Unlock()
	out, _ = a.call(t, "execute", map[string]any{"command": "sleep 30"})
	assert.Equal(t, float64(124), out["exit_code"], "the sandbox's timeout ends the command")

	out, refusal = a.call(t, "write_file", map[string]any{"path": "notes/a.txt", "content": "only in thread a\n"})
	require.Empty(t, refusal)
	assert.Equal(t, "/workspace/notes/a.txt", out["path"])
	out, _ = a.call(t, "read_file", map[string]any{"path": "notes/a.txt"})
	assert.Equal(t, "only in thread a\n", out["content"])
	_, refusal = a.call(t, "read_file", map[string]any{"path": "notes/a.txt", "limit": 0, "colour": "red"})
	assert.Equal(t, "The request has invalid fields.\nlimit: must be from 1 to 20000\ncolour: is not an argument of read_file", refusal)

	resources, err := a.ListResources(context.Background(), nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	assert.Contains(t, uris, "file:///workspace/notes/a.txt", "the working folder's files are resources")
	read, err := a.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///workspace/notes/a.txt"})
	require.NoError(t, err)
	assert.Equal(t, "only in thread a\n", read.Contents[0].Text)

	// Another session on another thread has a folder of its own; a session
	// that names no thread is a thread of its own.
	b := connectMCP(t, srv, agent, "conversation-b", nil)
	out, _ = b.call(t, "glob", map[string]any{"pattern": "**/*.txt"})
	assert.Equal(t, []any{}, out["paths"], "thread b does not see thread a's files")
	unnamed := connectMCP(t, srv, agent, "", nil)
	out, _ = unnamed.call(t, "ls", map[string]any{})
	assert.NotContains(t, out["entries"], "notes")
	status, thread := get(t, srv.URL+"/api/v1/agents/"+agent+"/threads/"+unnamed.ID(), adminToken)
	assert.Equal(t, 200, status, "the session's id names its thread: %v", thread)

	// Closing a session completes its run.
	require.NoError(t, b.Close())
	require.Eventually(t, func() bool {
		_, runs := get(t, srv.URL+"/api/v1/agents/"+agent+"/threads/conversation-b/runs", adminToken)
		items := runs["items"].([]any)
		return len(items) == 1 && items[0].(map[string]any)["status"] == "completed"
	}, 30*time.Second, 50*time.Millisecond)

	// A tool the binding disables is not listed, and refused to a session that listed it.
	bindTools(t, srv, agent, map[string]any{"execute": "disabled", "write_file": "needs_approval"})
	_, refusal = a.call(t, "execute", map[string]any{"command": "id"})
	assert.Equal(t, `The tool execute is disabled for agent "Agent of Local MCP".`, refusal)
	approver := connectMCP(t, srv, agent, "conversation-a", func(req *mcp.ElicitRequest) string {
		if strings.Contains(req.Params.Message, "denied.txt") {
			return "decline"
		}
		return "accept"
	})
	assert.NotContains(t, approver.toolNames(t), "execute")

	// A tool that needs approval asks the person through the client.
	out, refusal = approver.call(t, "write_file", map[string]any{"path": "approved.txt", "content": "yes"})
	require.Empty(t, refusal)
	assert.Equal(t, "/workspace/approved.txt", out["path"])
	_, refusal = approver.call(t, "write_file", map[string]any{"path": "denied.txt", "content": "no"})
	assert.Contains(t, refusal, "A person did not approve the call of write_file (they chose decline)")
	out, _ = approver.call(t, "glob", map[string]any{"pattern": "*.txt"})
	assert.Equal(t, []any{"/workspace/approved.txt"}, out["paths"], "nothing is written without approval")
	assert.Equal(t, []string{
		`denied: a person did not approve write_file denied.txt for agent "Agent of Local MCP" (decline, asked over MCP)`,
		`success: a person approved write_file approved.txt for agent "Agent of Local MCP"`,
	}, auditDetails(t, srv, "tool.approve"))

	// A client that fails to ask makes no call.
	unreachable := connectMCP(t, srv, agent, "conversation-a", func(*mcp.ElicitRequest) string { return "" })
	_, refusal = unreachable.call(t, "write_file", map[string]any{"path": "unasked.txt", "content": "?"})
	assert.Contains(t, refusal, "asking for it through this client failed: the call was not made")

	// A client that cannot ask is told who must approve, and where.
	_, refusal = a.call(t, "write_file", map[string]any{"path": "console.txt", "content": "?"})
	assert.Contains(t, refusal, "a person must approve the call in the Auxilia console")
	out, _ = a.call(t, "glob", map[string]any{"pattern": "*.txt"})
	assert.Equal(t, []any{"/workspace/approved.txt"}, out["paths"], "nothing is written unapproved")
}

// An agent whose sandbox cannot be used answers each call with a tool error naming the sandbox.
func TestMCPCallsOfAnUnavailableSandbox(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{})
	require.NoError(t, err)
	defer fake.Close()
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Wrong key", "provider": "daytona", "url": fake.URL(), "secret": "dtn_not-the-key-0000"})
	c := connectMCP(t, srv, agent, "t1", nil)
	for range 2 {
		_, refusal := c.call(t, "ls", map[string]any{})
		assert.Contains(t, refusal, "Sandbox 'Wrong key' is not available: ")
	}
	assert.Empty(t, fake.Sandboxes())
}

// initializeMCP sends an MCP initialize to the server's path with token
// ("" for none) and headers, as curl would; it returns the answer, read.
func initializeMCP(t *testing.T, srv *server, token, path string, header map[string]string) *http.Response {
	t.Helper()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	req, err := http.NewRequest("POST", srv.URL+path, strings.NewReader(init))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res
}

// The endpoint refuses a missing token as the MCP authorization spec says,
// and a session is reached only at its agent's URL, with its token.
func TestMCPEndpointRefusals(t *testing.T) {
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	send := func(token, path string, header map[string]string) *http.Response {
		return initializeMCP(t, srv, token, path, header)
	}
	res := send("", "/mcp/agents/"+agent, nil)
	assert.Equal(t, 401, res.StatusCode)
	meta := srv.URL + "/.well-known/oauth-protected-resource/mcp/agents/" + agent
	assert.Equal(t, `Bearer realm="auxilia", resource_metadata="`+meta+`"`, res.Header.Get("WWW-Authenticate"))
	status, doc := get(t, meta, "")
	assert.Equal(t, 200, status)
	assert.Equal(t, srv.URL+"/mcp/agents/"+agent, doc["resource"])

	assert.Equal(t, 404, send(adminToken, "/mcp/agents/0190a0b0-0000-7000-8000-000000000000", nil).StatusCode)
	assert.Equal(t, 422, send(adminToken, "/mcp/agents/"+agent, map[string]string{"Auxilia-Thread": "../x"}).StatusCode)

	opened := send(adminToken, "/mcp/agents/"+agent, nil)
	require.Equal(t, 200, opened.StatusCode)
	session := opened.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)
	other := bindNew(t, srv, map[string]any{"name": "Other", "provider": "local"})
	assert.Equal(t, 404, send(adminToken, "/mcp/agents/"+other, map[string]string{"Mcp-Session-Id": session}).StatusCode,
		"a session is not found at another agent's URL")
}

// Pages of another origin are refused as the MCP transport asks, those of
// the server itself and of the origins AUXILIA_ALLOWED_ORIGINS lists are
// served, and so is the Go SDK's client, which sends no Origin.
func TestMCPEndpointChecksOrigin(t *testing.T) {
	srv := instance(t, "AUXILIA_ALLOWED_ORIGINS=https://console.example.com, HTTP://Tools.Example.com:8080")
	agent := bindNew(t, srv, map[string]any{"name": "Local", "provider": "local"})
	for _, origin := range []string{"https://evil.example", "null", "http://tools.example.com", "https://tools.example.com:8080"} {
		res := initializeMCP(t, srv, adminToken, "/mcp/agents/"+agent, map[string]string{"Origin": origin})
		assert.Equal(t, 403, res.StatusCode, origin)
		assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"), origin)
		assert.Empty(t, res.Header.Get("Mcp-Session-Id"), "%s opens no session", origin)
	}
	for _, origin := range []string{srv.URL, "https://console.example.com", "http://tools.example.com:8080"} {
		res := initializeMCP(t, srv, adminToken, "/mcp/agents/"+agent, map[string]string{"Origin": origin})
		assert.Equal(t, 200, res.StatusCode, origin)
		assert.NotEmpty(t, res.Header.Get("Mcp-Session-Id"), origin)
	}
	c := connectMCP(t, srv, agent, "origins", nil)
	out, refusal := c.call(t, "execute", map[string]any{"command": "echo no-origin-$((2*3))"})
	require.Empty(t, refusal)
	assert.Equal(t, "no-origin-6\n", out["output"])
}
