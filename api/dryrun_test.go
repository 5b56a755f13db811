package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A dry run of a sandbox's create or patch answers as the request would,
// the server's rules included (a metadata address, a mount outside the
// allowed host paths, a taken name, a new provider), and saves and audits
// nothing.
func TestSandboxDryRunAnswersAndSavesNothing(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		before := len(e.audit(""))
		body := map[string]any{"name": "Team", "provider": "opensandbox", "url": "sandbox.internal:8083",
			"secret": "osk-0123456789abcdef", "config": map[string]any{"volume_mounts": []string{"/srv/data:/data:ro"}}, "managed_by": "auxilia-apply"}
		r := e.call("POST", "/api/v1/sandboxes?dry_run=true", e.admin, body)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		would := r.json(t)
		assert.Equal(t, "http://sandbox.internal:8083", would["url"], "the answer is the sandbox as it would be")
		assert.Equal(t, "auxilia-apply", would["managed_by"])
		assert.Equal(t, true, would["has_secret"])
		assert.Equal(t, "python:3.12-slim", would["config"].(map[string]any)["default_image"])
		assert.Empty(t, r.Header.Get("Location"), "nothing was made to point at")
		assert.Empty(t, e.call("GET", "/api/v1/sandboxes", e.admin, nil).json(t)["items"], "a dry run saves nothing")
		assert.Len(t, e.audit(""), before, "a dry run audits nothing")
		e.call("POST", "/api/v1/sandboxes?dry_run=true", e.member, body).problem(t, 403, "forbidden")
		assert.Equal(t, []string{"sandbox.create denied"}, actions(e.audit("")[:1]), "a dry run the caller may not make is recorded")
		before++

		for _, refused := range []struct {
			url, mount, field string
		}{
			{"http://169.254.169.254", "/srv/data:/data", "url"},
			{"sandbox.internal:8083", "/etc:/etc", "config.volume_mounts.0"},
		} {
			bad := map[string]any{"name": "Bad", "provider": "opensandbox", "url": refused.url,
				"config": map[string]any{"volume_mounts": []string{refused.mount}}}
			p := e.call("POST", "/api/v1/sandboxes?dry_run=true", e.admin, bad).problem(t, 422, "validation_failed")
			assert.Equal(t, []string{refused.field}, fields(p))
		}

		made := e.createSandbox(body)
		id := made["id"].(string)
		p := e.call("POST", "/api/v1/sandboxes?dry_run=true", e.admin, body).problem(t, 409, "conflict")
		assert.Equal(t, id, p["existing_id"], "a taken name is the create's 409")
		before = len(e.audit(""))

		r = e.call("PATCH", "/api/v1/sandboxes/"+id+"?dry_run=true", e.admin, map[string]any{"description": "Scratch"})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, "Scratch", r.json(t)["description"])
		assert.Equal(t, `"2"`, r.Header.Get("ETag"), "the version the edit would make")
		p = e.call("PATCH", "/api/v1/sandboxes/"+id+"?dry_run=true", e.admin, map[string]any{"provider": "daytona", "description": "Other"}).
			problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"provider"}, fields(p), "a sandbox keeps its provider")
		p = e.call("PATCH", "/api/v1/sandboxes/"+id+"?dry_run=true", e.admin, map[string]any{"config": map[string]any{"volume_mounts": []string{"/etc:/etc"}}}).
			problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"config.volume_mounts.0"}, fields(p))
		e.call("PATCH", "/api/v1/sandboxes/"+id+"?dry_run=true", e.admin, map[string]any{"description": "x"}, "If-Match", `"7"`).
			problem(t, 412, "precondition_failed")
		e.call("PATCH", "/api/v1/sandboxes/"+id+"?dry_run=maybe", e.admin, map[string]any{"description": "x"}).
			problem(t, 422, "validation_failed")
		before++ // not a dry run: its refusal is recorded

		got := e.call("GET", "/api/v1/sandboxes/"+id, e.admin, nil)
		assert.Equal(t, "", got.json(t)["description"], "a dry run changes nothing")
		assert.Equal(t, `"1"`, got.Header.Get("ETag"))
		assert.Len(t, e.audit(""), before, "a dry run audits nothing")
	}, func(o *options) { o.policy.AllowedHostPaths = []string{"/srv/data"} })
}

// A dry run sent with an Idempotency-Key is not the answer that key keeps:
// the real request with the same key and body makes the sandbox.
func TestADryRunIsNotReplayedToTheRealRequest(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		body := map[string]any{"name": "Local", "provider": "local"}
		require.Equal(t, 201, e.call("POST", "/api/v1/sandboxes?dry_run=true", e.admin, body, "Idempotency-Key", "k1").StatusCode)
		r := e.call("POST", "/api/v1/sandboxes", e.admin, body, "Idempotency-Key", "k1")
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		assert.NotEmpty(t, r.Header.Get("Location"))
		assert.Len(t, e.call("GET", "/api/v1/sandboxes", e.admin, nil).json(t)["items"], 1)
	})
}

// An agent's dry runs answer as the create or patch would and save and
// audit nothing; managed_by is set when an agent is made and never after.
func TestAgentDryRunAndManagedBy(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		before := len(e.audit(""))
		r := e.call("POST", "/api/v1/agents?dry_run=1", e.member, map[string]any{"name": " Analyst ", "managed_by": "auxilia-apply"})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		would := r.json(t)
		assert.Equal(t, "Analyst", would["name"])
		assert.Equal(t, "🤖", would["emoji"], "defaults are filled in as on a create")
		assert.Equal(t, "auxilia-apply", would["managed_by"])
		p := e.call("POST", "/api/v1/agents?dry_run=true", e.member, map[string]any{"name": "A", "color": "red", "managed_by": "Apply Tool"}).
			problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"color", "managed_by"}, fields(p))
		assert.Empty(t, e.call("GET", "/api/v1/agents", e.member, nil).json(t)["items"])
		assert.Len(t, e.audit(""), before)

		made := e.call("POST", "/api/v1/agents", e.member, map[string]any{"name": "Analyst", "managed_by": "auxilia-apply"}).json(t)
		assert.Equal(t, "auxilia-apply", made["managed_by"])
		assert.Equal(t, "", e.createAgent("Console")["managed_by"], "an agent made without it is managed by none")
		id := made["id"].(string)
		before = len(e.audit(""))
		r = e.call("PATCH", "/api/v1/agents/"+id+"?dry_run=true", e.member, map[string]any{"color": "#000000"})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		assert.Equal(t, "#000000", r.json(t)["color"])
		e.call("PATCH", "/api/v1/agents/"+id+"?dry_run=true", e.member, map[string]any{"color": "red"}).problem(t, 422, "validation_failed")
		e.call("PATCH", "/api/v1/agents/"+id, e.member, map[string]any{"managed_by": ""}).problem(t, 400, "malformed_request")
		before++ // not a dry run: its refusal is recorded
		got := e.call("GET", "/api/v1/agents/"+id, e.member, nil).json(t)
		assert.Equal(t, "#6366f1", got["color"], "a dry run changes nothing")
		assert.Equal(t, "auxilia-apply", got["managed_by"])
		assert.Len(t, e.audit(""), before)

		sb := e.call("PATCH", "/api/v1/sandboxes/"+e.createSandbox(map[string]any{"name": "L", "provider": "local", "managed_by": "ci"})["id"].(string),
			e.admin, map[string]any{"description": "d"}).json(t)
		assert.Equal(t, "ci", sb["managed_by"], "an edit keeps it")
	})
}
