package api_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Who may call a route.
type access int

const (
	public    access = iota // no token needed
	anyRole                 // any token of the workspace
	adminOnly               // admin tokens only
)

// authorization is the matrix every route must be in: a new route without
// an entry fails TestAuthorizationMatrix.
var authorization = map[string]access{
	"GET /healthz":                                             public,
	"GET /readyz":                                              public,
	"GET /metrics":                                             public, // 404 when served on a listener of its own
	"GET /api/v1/openapi.yaml":                                 public,
	"GET /api/v1/workspace":                                    anyRole,
	"GET /api/v1/me":                                           anyRole,
	"GET /api/v1/workspace/people":                             adminOnly,
	"POST /api/v1/tokens":                                      adminOnly,
	"GET /api/v1/tokens":                                       adminOnly,
	"DELETE /api/v1/tokens/:id":                                adminOnly,
	"GET /api/v1/providers":                                    anyRole,
	"GET /api/v1/tools":                                        anyRole,
	"GET /api/v1/sandboxes":                                    anyRole,
	"POST /api/v1/sandboxes":                                   adminOnly,
	"POST /api/v1/sandboxes/probe":                             adminOnly,
	"GET /api/v1/sandboxes/:id":                                anyRole,
	"PATCH /api/v1/sandboxes/:id":                              adminOnly,
	"DELETE /api/v1/sandboxes/:id":                             adminOnly,
	"GET /api/v1/sandboxes/:id/secret-hint":                    adminOnly,
	"GET /api/v1/sandboxes/:id/agents":                         anyRole,
	"POST /api/v1/sandboxes/:id/probe":                         adminOnly,
	"GET /api/v1/instances":                                    adminOnly,
	"GET /api/v1/sandboxes/:id/instances":                      adminOnly,
	"POST /api/v1/sandboxes/:id/instances/:instance_id/pause":  adminOnly,
	"POST /api/v1/sandboxes/:id/instances/:instance_id/resume": adminOnly,
	"DELETE /api/v1/sandboxes/:id/instances/:instance_id":      adminOnly,
	"GET /api/v1/runs":                                         anyRole,
	"GET /api/v1/agents":                                       anyRole,
	"POST /api/v1/agents":                                      anyRole,
	"GET /api/v1/agents/:id":                                   anyRole,
	"PATCH /api/v1/agents/:id":                                 anyRole,
	"DELETE /api/v1/agents/:id":                                anyRole,
	"PUT /api/v1/agents/:id/sandbox":                           anyRole,
	"GET /api/v1/agents/:id/sandbox":                           anyRole,
	"DELETE /api/v1/agents/:id/sandbox":                        anyRole,
	"GET /api/v1/audit":                                        adminOnly,
	"GET /api/v1/alerts":                                       adminOnly,
	"GET /api/v1/usage":                                        anyRole, // members see totals; a member's group_by is 403 (usage_test.go)
	"POST /api/v1/agents/:id/threads/:thread_id/runs":          anyRole,
	"GET /api/v1/agents/:id/threads":                           anyRole,
	"GET /api/v1/agents/:id/threads/:thread_id":                anyRole,
	"DELETE /api/v1/agents/:id/threads/:thread_id":             anyRole,
	"GET /api/v1/agents/:id/threads/:thread_id/runs":           anyRole,
	"GET /api/v1/agents/:id/threads/:thread_id/start-failures": anyRole,
	"GET /api/v1/runs/:run_id":                                 anyRole,
	"POST /api/v1/runs/:run_id/complete":                       anyRole,
	"POST /api/v1/runs/:run_id/execute":                        anyRole,
	"GET /api/v1/runs/:run_id/ls":                              anyRole,
	"GET /api/v1/runs/:run_id/files":                           anyRole,
	"GET /api/v1/runs/:run_id/files/raw":                       anyRole,
	"PUT /api/v1/runs/:run_id/files":                           anyRole,
	"POST /api/v1/runs/:run_id/edit":                           anyRole,
	"GET /api/v1/runs/:run_id/glob":                            anyRole,
	"GET /api/v1/runs/:run_id/grep":                            anyRole,

	// Each agent's MCP server, and its protected resource metadata.
	"GET /mcp/agents/:id":    anyRole,
	"POST /mcp/agents/:id":   anyRole,
	"DELETE /mcp/agents/:id": anyRole,
	"GET /.well-known/oauth-protected-resource/mcp/agents/:id": public,

	// Signing in to the console (404 while single sign-on is off, as here).
	"GET /auth/config":        public,
	"GET /auth/oidc/login":    public,
	"GET /auth/oidc/callback": public,
	"POST /auth/logout":       public,

	// A run's approvals: a member decides as a member may approve a call.
	"GET /api/v1/runs/:run_id/approvals":                        anyRole,
	"POST /api/v1/runs/:run_id/terminal-tickets":                anyRole,
	"GET /api/v1/runs/:run_id/terminal":                         anyRole,
	"POST /api/v1/runs/:run_id/approvals/:approval_id/decision": anyRole,
}

// requests are what each route is sent (valid, so that the answer is about
// access, not about the body); routes not listed get no body, or {}.
func (f fixture) request(key string) (query string, body any) {
	switch key {
	case "POST /api/v1/runs/:run_id/execute":
		return "", map[string]any{"command": "true"}
	case "POST /api/v1/runs/:run_id/edit":
		return "", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"}
	case "PUT /api/v1/agents/:id/sandbox":
		return "", map[string]any{"sandbox_id": f.sandbox}
	case "PUT /api/v1/runs/:run_id/files":
		return "?path=new.txt", "content"
	case "GET /api/v1/runs/:run_id/files", "GET /api/v1/runs/:run_id/files/raw":
		return "?path=a.txt", nil
	case "GET /api/v1/runs/:run_id/glob":
		return "?pattern=*", nil
	case "GET /api/v1/runs/:run_id/grep":
		return "?pattern=x", nil
	}
	if m, _, _ := strings.Cut(key, " "); m == "POST" || m == "PUT" || m == "PATCH" {
		return "", map[string]any{}
	}
	return "", nil
}

// fixture is one workspace's resources, for a route's path parameters.
type fixture struct{ sandbox, agent, token, run string }

func (e *env) fixture() fixture {
	e.t.Helper()
	sb := e.createSandbox(map[string]any{"name": "Local", "provider": "local"})
	ag := e.createAgent("Agent")
	require.Equal(e.t, 200, e.call("PUT", "/api/v1/agents/"+ag["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]}).StatusCode)
	run := e.call("POST", "/api/v1/agents/"+ag["id"].(string)+"/threads/t/runs", e.member, nil).json(e.t)
	tok := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "victim"}).json(e.t)
	return fixture{sandbox: sb["id"].(string), agent: ag["id"].(string), token: tok["id"].(string), run: run["id"].(string)}
}

// path fills a route's parameters with the fixture's ids.
func (f fixture) path(route string) string {
	id := f.sandbox
	switch {
	case strings.HasPrefix(route, "/api/v1/agents/"), strings.HasPrefix(route, "/mcp/agents/"):
		id = f.agent
	case strings.HasPrefix(route, "/api/v1/tokens/"):
		id = f.token
	}
	return strings.NewReplacer(":id", id, ":run_id", f.run, ":thread_id", "t", ":instance_id", "00000000-0000-4000-8000-000000000001").Replace(route)
}

func TestAuthorizationMatrix(t *testing.T) {
	db := storetest.Open(t, store.SQLite)
	routes := newEnv(t, db).echo.Routes()
	var keys []string
	for _, r := range routes {
		if r.Path == "/*" || strings.HasSuffix(r.Path, "/*") {
			continue // not-found catch-alls
		}
		keys = append(keys, r.Method+" "+r.Path)
	}
	sort.Strings(keys)
	for _, key := range keys {
		rule, ok := authorization[key]
		require.True(t, ok, "route %s has no entry in the authorization matrix", key)
		t.Run(key, func(t *testing.T) {
			e := newEnv(t, storetest.Open(t, store.SQLite))
			f := e.fixture()
			revoked := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "gone", "role": "admin"}).json(t)
			require.Equal(t, 204, e.call("DELETE", "/api/v1/tokens/"+revoked["id"].(string), e.admin, nil).StatusCode)
			method, route, _ := strings.Cut(key, " ")
			query, body := f.request(key)
			path := f.path(route) + query
			hasID := strings.Contains(route, ":")
			status := func(tok string) int { return e.call(method, path, tok, body).StatusCode }

			if rule == public {
				for _, tok := range []string{"", revoked["token"].(string), e.member, e.admin} {
					assert.NotContains(t, []int{401, 403}, status(tok))
				}
				return
			}
			assert.Equal(t, 401, status(""), "no token")
			assert.Equal(t, 401, status(revoked["token"].(string)), "a revoked token")
			foreign := status(e.foreign)
			if hasID {
				assert.Equal(t, 404, foreign, "an admin of another workspace finds nothing")
			} else {
				assert.NotContains(t, []int{401, 403}, foreign, "an admin of another workspace uses their own")
			}
			if rule == adminOnly {
				assert.Equal(t, 403, status(e.member), "a member")
			} else {
				assert.NotContains(t, []int{401, 403}, status(e.member), "a member")
			}
			assert.NotContains(t, []int{401, 403}, status(e.admin), "an admin")
		})
	}
	assert.Len(t, keys, len(authorization), "every entry of the matrix is a route")
}
