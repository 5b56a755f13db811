package api_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/api"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const mcpInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`

// mcpPost sends an MCP message to the agent's endpoint, as a Streamable HTTP client does.
func (e *env) mcpPost(agentID, tok string, headers ...string) response {
	return e.send("POST", "/mcp/agents/"+agentID, tok, mcpInitialize,
		append([]string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}, headers...)...)
}

func TestMCPRefusesWithTheChallengeTheMCPSpecAsks(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent := e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": "Analyst"}).json(t)["id"].(string)
		r := e.mcpPost(agent, "")
		r.problem(t, 401, "unauthorized")
		assert.Equal(t, `Bearer realm="auxilia", resource_metadata="`+e.srv.URL+`/.well-known/oauth-protected-resource/mcp/agents/`+agent+`"`,
			r.Header.Get("WWW-Authenticate"))
		assert.Equal(t, `Bearer realm="auxilia"`, e.call("GET", "/api/v1/me", "", nil).Header.Get("WWW-Authenticate"),
			"the API's own challenge is unchanged")

		e.mcpPost(agent, e.foreign).problem(t, 404, "not_found")
		p := e.mcpPost(agent, e.member, "Auxilia-Thread", "a/b").problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"Auxilia-Thread"}, fields(p))
		opened := e.mcpPost(agent, e.member)
		require.Equal(t, 200, opened.StatusCode)
		session := opened.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, session)
		assert.Equal(t, 403, e.mcpPost(agent, e.admin, "Mcp-Session-Id", session).StatusCode,
			"a session is used only with the token that opened it")
	})
}

func TestMCPRequestsAreRateLimitedAndTheirRefusalsAudited(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent := e.call("POST", "/api/v1/agents", e.admin, map[string]any{"name": "Analyst"}).json(t)["id"].(string)
		for range 3 {
			require.Equal(t, 200, e.mcpPost(agent, e.member).StatusCode)
		}
		e.mcpPost(agent, e.member).problem(t, 429, "rate_limited")
		var refused []string
		for _, entry := range e.audit("?resource_type=agent&resource_id=" + agent) {
			if entry["action"] == "mcp.call" {
				refused = append(refused, entry["outcome"].(string)+": "+entry["detail"].(string))
			}
		}
		require.Len(t, refused, 1)
		assert.Contains(t, refused[0], "more than 3 requests this minute")
	}, func(o *options) { o.rateLimit = 3 })
}

// A reverse proxy on the same host forwards to a loopback address with the
// public host name.
func TestMCPBehindAReverseProxyOnTheSameHost(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent := e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": "Analyst"}).json(t)["id"].(string)
		req, err := http.NewRequest("POST", e.srv.URL+"/mcp/agents/"+agent, strings.NewReader(mcpInitialize))
		require.NoError(t, err)
		req.Host = "aux.example.com"
		req.Header.Set("Authorization", "Bearer "+e.member)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		assert.Equal(t, 200, res.StatusCode)
	})
}

// bearer sends a token with every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// fromPage sends a token with every request, and an Origin header, as a
// browser's page does, when one is given.
type fromPage struct {
	token  string
	origin string
}

func (p fromPage) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+p.token)
	if p.origin != "" {
		r.Header.Set("Origin", p.origin)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// The MCP transport asks servers to refuse a request whose Origin is not
// theirs: a page of another origin, whatever token it holds, is refused
// with 403 before its session or the token is looked at. A client that
// sends no Origin (any but a browser's page), this server's own pages and
// the origins the operator allowed are served.
func TestMCPRefusesPagesOfAnotherOrigin(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		f := e.fixture()
		ctx := context.Background()
		connect := func(origin string) (*mcp.ClientSession, error) {
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp/agents/" + f.agent,
				HTTPClient: &http.Client{Transport: fromPage{token: e.member, origin: origin}}}, nil)
		}
		echo := &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"command": "echo hi"}}
		host := strings.TrimPrefix(e.srv.URL, "http://")

		for _, origin := range []string{"https://evil.example", "null", "http://" + host + ".evil.example",
			"http://evil.example#" + host, "https://console.example.com.evil.example", "file://", "", "evil.example"} {
			r := e.mcpPost(f.agent, e.member, "Origin", origin)
			p := r.problem(t, 403, "forbidden")
			assert.Contains(t, p["detail"], "AUXILIA_ALLOWED_ORIGINS", "%q", origin)
			assert.Empty(t, r.Header.Get("Mcp-Session-Id"), "%q opens no session", origin)
		}
		e.mcpPost(f.agent, "", "Origin", "https://evil.example").problem(t, 403, "forbidden")
		e.mcpPost(f.agent, e.member, "Origin", e.srv.URL, "Origin", "https://evil.example").problem(t, 403, "forbidden")
		_, err := connect("https://evil.example")
		require.Error(t, err, "the SDK's client, from another origin's page, is refused")

		// A call on a session a client opened, sent by a page: refused before
		// it reaches the session, whose first call would start a run.
		session, err := connect("")
		require.NoError(t, err, "a client without Origin is served")
		call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute","arguments":{"command":"echo hi"}}}`
		e.send("POST", "/mcp/agents/"+f.agent, e.member, call, "Content-Type", "application/json",
			"Accept", "application/json, text/event-stream", "Mcp-Session-Id", session.ID(),
			"Mcp-Protocol-Version", session.InitializeResult().ProtocolVersion, "Origin", "https://evil.example").problem(t, 403, "forbidden")
		e.call("GET", "/api/v1/agents/"+f.agent+"/threads/"+session.ID(), e.member, nil).problem(t, 404, "not_found")
		res, err := session.CallTool(ctx, echo)
		require.NoError(t, err)
		assert.False(t, res.IsError, "%v", res.Content)
		require.Equal(t, 200, e.call("GET", "/api/v1/agents/"+f.agent+"/threads/"+session.ID(), e.member, nil).StatusCode,
			"the refused call started nothing; this one did")
		require.NoError(t, session.Close())

		for _, origin := range []string{e.srv.URL, "HTTP://" + strings.ToUpper(host), "https://console.example.com", "https://Console.Example.com:443"} {
			session, err := connect(origin)
			require.NoError(t, err, origin)
			res, err := session.CallTool(ctx, echo)
			require.NoError(t, err, origin)
			assert.False(t, res.IsError, "%s: %v", origin, res.Content)
			require.NoError(t, session.Close())
		}
	}, func(o *options) { o.allowedOrigins = []string{"https://console.example.com"} })
}

// A session without Auxilia-Thread is a thread of its own: its first call
// starts a run on it, its other calls reuse that run, and closing it
// completes the run.
func TestMCPSessionIsAThreadWhoseRunEndsWithIt(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		f := e.fixture()
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp/agents/" + f.agent,
			HTTPClient: &http.Client{Transport: bearer(e.member)}}, nil)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for _, command := range []string{"echo one", "echo two"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"command": command}})
				assert.NoError(t, err)
				assert.False(t, res.IsError, "%v", res.Content)
			}()
		}
		wg.Wait()
		runs := e.call("GET", "/api/v1/agents/"+f.agent+"/threads/"+session.ID()+"/runs", e.member, nil).json(t)["items"].([]any)
		require.Len(t, runs, 1, "calls of one session share one run")
		run := runs[0].(map[string]any)
		assert.Equal(t, "active", run["status"])

		require.NoError(t, session.Close())
		require.Eventually(t, func() bool {
			return e.call("GET", "/api/v1/runs/"+run["id"].(string), e.member, nil).json(t)["status"] == "completed"
		}, 30*time.Second, 20*time.Millisecond, "closing the session completes its run")
	})
}

// The Streamable HTTP transport of MCP 2025-11-25: a server that requires
// sessions answers a request without a session id (other than the
// initialize that opens one) with 400, and one naming a session it does
// not have with 404, so that the client opens a new session.
func TestMCPRequestsOutsideASessionGetTheTransportsStatus(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		f := e.fixture()
		list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
		mcpHeaders := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream",
			"Mcp-Protocol-Version", "2025-11-25"}
		endpoint := "/mcp/agents/" + f.agent

		p := e.send("POST", endpoint, e.member, list, mcpHeaders...).problem(t, 400, "malformed_request")
		assert.Contains(t, p["detail"], "Mcp-Session-Id")
		e.send("POST", endpoint, e.member, `[`+list+`]`, mcpHeaders...).problem(t, 400, "malformed_request")
		note := `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		e.send("POST", endpoint, e.member, note, mcpHeaders...).problem(t, 400, "malformed_request")
		// A client of a later, session-less version is told by the transport
		// which versions it may use, as its negotiation expects.
		later := e.send("POST", endpoint, e.member, `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{}}`,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "Mcp-Protocol-Version", "2026-07-28")
		assert.Equal(t, "application/json", later.Header.Get("Content-Type"), "a JSON-RPC answer, not a problem: %s", later.body)
		assert.Contains(t, string(later.body), `"jsonrpc":"2.0"`)

		var refused []string
		for _, entry := range e.audit("?resource_type=agent&resource_id=" + f.agent) {
			if entry["action"] == "mcp.call" {
				refused = append(refused, entry["outcome"].(string))
			}
		}
		assert.Equal(t, []string{"invalid", "invalid", "invalid"}, refused, "each refusal is audited")
		assert.Equal(t, 400, e.send("GET", endpoint, e.member, nil, "Accept", "text/event-stream").StatusCode)
		assert.Equal(t, 400, e.send("DELETE", endpoint, e.member, nil).StatusCode)

		unknown := append([]string{"Mcp-Session-Id", "mcp-" + "0123456789abcdef"}, mcpHeaders...)
		assert.Equal(t, 404, e.send("POST", endpoint, e.member, list, unknown...).StatusCode)
		assert.Equal(t, 404, e.send("GET", endpoint, e.member, nil, "Accept", "text/event-stream", "Mcp-Session-Id", "mcp-gone").StatusCode)
		assert.Equal(t, 404, e.send("DELETE", endpoint, e.member, nil, "Mcp-Session-Id", "mcp-gone").StatusCode)

		// A session the client closed is gone: the official client is told 404.
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + endpoint,
			HTTPClient: &http.Client{Transport: bearer(e.member)}}, nil)
		require.NoError(t, err)
		require.NoError(t, session.Close())
		closed := append([]string{"Mcp-Session-Id", session.ID()}, mcpHeaders...)
		assert.Equal(t, 404, e.send("POST", endpoint, e.member, list, closed...).StatusCode)
	})
}

// The server tells its build's version, and each tool declares the schema
// of its structured answer, which its answers keep to.
func TestMCPToolsDeclareTheirAnswersSchema(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		f := e.fixture()
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: e.srv.URL + "/mcp/agents/" + f.agent,
			HTTPClient: &http.Client{Transport: bearer(e.member)}}, nil)
		require.NoError(t, err)
		defer session.Close()
		info := session.InitializeResult().ServerInfo
		assert.Equal(t, "auxilia", info.Name)
		require.NotEmpty(t, api.BuildVersion())
		assert.Equal(t, api.BuildVersion(), info.Version)

		listed, err := session.ListTools(ctx, nil)
		require.NoError(t, err)
		require.Len(t, listed.Tools, len(run.Tools))
		schemas := map[string]*jsonschema.Resolved{}
		for _, tool := range listed.Tools {
			require.NotNil(t, tool.OutputSchema, tool.Name)
			var schema jsonschema.Schema
			js, err := json.Marshal(tool.OutputSchema)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(js, &schema), tool.Name)
			assert.Equal(t, "object", schema.Type, tool.Name)
			resolved, err := schema.Resolve(nil)
			require.NoError(t, err, tool.Name)
			schemas[tool.Name] = resolved
		}
		assert.ElementsMatch(t, []string{"exit_code", "output", "truncated", "duration_ms"}, slices.Collect(maps.Keys(schemas["execute"].Schema().Properties)))

		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"execute", map[string]any{"command": "echo hi"}},
			{"write_file", map[string]any{"path": "a.txt", "content": "one\ntwo\n"}},
			{"ls", map[string]any{}},
			{"read_file", map[string]any{"path": "a.txt"}},
			{"edit_file", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "three"}},
			{"glob", map[string]any{"pattern": "*.md"}},
			{"grep", map[string]any{"pattern": "three"}},
		} {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			require.NoError(t, err, c.tool)
			require.False(t, res.IsError, "%s: %v", c.tool, res.Content)
			var answer map[string]any
			js, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(js, &answer))
			assert.NoError(t, schemas[c.tool].Validate(answer), "%s answered %s", c.tool, js)
		}
		assert.Error(t, schemas["execute"].Validate(map[string]any{"exit_code": 0}), "the schema requires what every answer has")
	})
}
