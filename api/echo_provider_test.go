package api_test

import (
	"slices"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Adding a provider takes its own package and the line that lists it:
// echotest's echo provider, made of the provider kit alone, is in the
// catalogue in its place, its config is validated as declared (common
// block included), and a run on it executes commands and reads files
// through the API. Its own tests run the conformance suite.
func TestASixthProviderNeedsOnlyItsPackageAndItsLine(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		items := e.call("GET", "/api/v1/providers", e.member, nil).json(t)["items"].([]any)
		var names []string
		for _, it := range items {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		require.Equal(t, provider.NewRegistry(provider.Policy{}, nil, kinds...).Names(), names)
		at := slices.Index(names, "echo")
		require.GreaterOrEqual(t, at, 0, "echo is in the catalogue")
		assert.Equal(t, "daytona", names[at-1], "in its order, between daytona (20)…")
		assert.Equal(t, "cloudrun", names[at+1], "…and cloudrun (30)")
		p := items[at].(map[string]any)
		assert.Equal(t, 25.0, p["order"])
		assert.Equal(t, "Echo", p["title"])
		assert.Equal(t, echotest.Kind{}.Describe().IconURL(), p["icon"])
		assert.Contains(t, p["icon"], "data:image/svg+xml;base64,")
		assert.Equal(t, []any{"find_created", "pause_resume", "snapshot_restore", "interrupt"}, p["capabilities"])
		schema := p["config_schema"].(map[string]any)
		assert.Equal(t, []any{"work_dir", "default_packages", "timeout", "network", "resources", "idle_minutes", "keep_files", "max_kept_days", "pool"}, schema["x-order"])
		timeout := schema["properties"].(map[string]any)["timeout"].(map[string]any)
		assert.Equal(t, 600.0, timeout["maximum"])
		assert.Equal(t, "Longest a command may run (echo is quick).", timeout["description"])

		srv := echotest.NewServer(t)
		bad := map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token,
			"config": map[string]any{"work_dir": "relative", "timeout": 601, "default_packages": []string{"not a requirement!"}, "colour": "red"}}
		problem := e.call("POST", "/api/v1/sandboxes", e.admin, bad).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"config.work_dir", "config.timeout", "config.default_packages.0", "config.colour"}, fields(problem))

		sandbox := map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token}
		probe := e.call("POST", "/api/v1/sandboxes/probe", e.admin, sandbox)
		require.Equal(t, 200, probe.StatusCode, "%s", probe.body)
		assert.Equal(t, true, probe.json(t)["ok"])

		// openapi.yaml lists the built-in providers: the answers that name
		// echo are sent unchecked (cmd/openapigen's test shows that the
		// generated enum follows the providers it is given).
		r := e.send("POST", "/api/v1/sandboxes", e.admin, sandbox)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		sb := r.json(t)
		agent := e.createAgent("Echoer")
		r = e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.send("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/conv-1/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		run := "/api/v1/runs/" + r.json(t)["id"].(string)
		res := e.call("POST", run+"/execute", e.member, map[string]any{"command": "printf 'said by echo\\n' > said.txt && pwd"}).json(t)
		assert.Equal(t, 0.0, res["exit_code"])
		assert.Equal(t, "/workspace\n", res["output"])
		file := e.call("GET", run+"/files?path=said.txt", e.member, nil).json(t)
		assert.Equal(t, "/workspace/said.txt", file["path"])
		assert.Equal(t, "said by echo\n", file["content"])
		assert.Equal(t, 1, srv.Instances(), "the run's instance is at the echo server")
	}, func(o *options) { o.kinds = kinds })
}
