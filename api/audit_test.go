package api_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (e *env) audit(query string) []map[string]any {
	e.t.Helper()
	r := e.call("GET", "/api/v1/audit"+query, e.admin, nil)
	require.Equal(e.t, 200, r.StatusCode, "%s", r.body)
	var out []map[string]any
	for _, it := range r.json(e.t)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

func actions(entries []map[string]any) []string {
	var out []string
	for _, e := range entries {
		out = append(out, fmt.Sprintf("%s %s", e["action"], e["outcome"]))
	}
	return out
}

func TestAuditRecordsChangesAndRefusals(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		secretValue := "dtn_audit_secret_0123456789"
		sb := e.createSandbox(map[string]any{"name": "Daytona", "provider": "daytona", "secret": secretValue})
		id := sb["id"].(string)
		require.Equal(t, 200, e.call("PATCH", "/api/v1/sandboxes/"+id, e.admin, map[string]any{"secret": secretValue + "-2", "config": map[string]any{"timeout": 60}}).StatusCode)
		ag := e.createAgent("Analyst")
		require.Equal(t, 200, e.call("PUT", "/api/v1/agents/"+ag["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": id}).StatusCode)
		require.Equal(t, 204, e.call("DELETE", "/api/v1/agents/"+ag["id"].(string)+"/sandbox", e.member, nil).StatusCode)

		e.call("POST", "/api/v1/sandboxes", e.member, validSandboxes["local"]).problem(t, 403, "forbidden")
		e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "", "provider": "daytona", "secret": secretValue}).problem(t, 422, "validation_failed")
		e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Daytona", "provider": "daytona", "secret": secretValue}).problem(t, 409, "conflict")
		e.call("PATCH", "/api/v1/sandboxes/"+id, e.admin, map[string]any{"name": "x"}, "If-Match", `"1"`).problem(t, 412, "precondition_failed")
		require.Equal(t, 204, e.call("DELETE", "/api/v1/sandboxes/"+id, e.admin, nil).StatusCode)

		tok := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "temp", "role": "admin"}).json(t)
		require.Equal(t, 204, e.call("DELETE", "/api/v1/tokens/"+tok["id"].(string), e.admin, nil).StatusCode)
		e.call("POST", "/api/v1/sandboxes", tok["token"].(string), validSandboxes["local"]).problem(t, 401, "unauthorized")
		e.call("POST", "/api/v1/sandboxes", "aux_unknown", validSandboxes["local"]).problem(t, 401, "unauthorized")

		entries := e.audit("")
		assert.Equal(t, []string{
			"sandbox.create denied", // the revoked token, recorded in its workspace
			"token.revoke success",
			"token.create success",
			"sandbox.delete success",
			"sandbox.update conflict",
			"sandbox.create conflict",
			"sandbox.create invalid",
			"sandbox.create denied",
			"binding.delete success",
			"binding.put success",
			"agent.create success",
			"sandbox.update success",
			"sandbox.create success",
			"token.create success", // the env's member
			"token.create success", // the env's admin
		}, actions(entries), "newest first")
		assert.Equal(t, "temp", entries[0]["actor"].(map[string]any)["token_name"])
		assert.Equal(t, "member@default", entries[7]["actor"].(map[string]any)["token_name"])
		assert.Contains(t, entries[6]["detail"], "Invalid: name.")
		assert.Contains(t, entries[11]["detail"], "secret replaced")
		assert.Contains(t, entries[11]["detail"], "config.timeout")
		assert.Equal(t, id, entries[11]["resource_id"])

		assert.Equal(t, []string{"sandbox.delete success", "sandbox.update conflict", "sandbox.update success", "sandbox.create success"},
			actions(e.audit("?resource_type=sandbox&resource_id="+id)))
		me := e.call("GET", "/api/v1/me", e.member, nil).json(t)
		assert.Equal(t, []string{"sandbox.create denied", "binding.delete success", "binding.put success", "agent.create success"},
			actions(e.audit("?actor="+me["token_id"].(string))))
		assert.Empty(t, e.call("GET", "/api/v1/audit", e.foreign, nil).json(t)["items"].([]any)[1:], "another workspace sees only its own")
		e.call("GET", "/api/v1/audit", e.member, nil).problem(t, 403, "forbidden")

		sqlDB, err := e.db.SQL()
		require.NoError(t, err)
		var anonymous int
		require.NoError(t, sqlDB.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM audit_entries WHERE workspace_id IS NULL").Scan(&anonymous))
		assert.Equal(t, 1, anonymous, "an unknown token's attempt is recorded without a workspace")

		rows, err := sqlDB.QueryContext(context.Background(), "SELECT action, detail, token_name, resource_id FROM audit_entries")
		require.NoError(t, err)
		defer rows.Close()
		n := 0
		for rows.Next() {
			var cols [4]string
			require.NoError(t, rows.Scan(&cols[0], &cols[1], &cols[2], &cols[3]))
			assert.NotContains(t, strings.Join(cols[:], " "), "audit_secret", "no audit entry holds a secret")
			n++
		}
		assert.Greater(t, n, 10)
	})
}

func TestRefusalsWithAnIdempotencyKeyAreAudited(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "", "provider": "local"}, "Idempotency-Key", "k").
			problem(t, 422, "validation_failed")
		entries := e.audit("?resource_type=sandbox")
		require.Len(t, entries, 1)
		assert.Equal(t, "invalid", entries[0]["outcome"])
	})
}

// A kind of resource outside the enum is refused, named beside every other
// bad parameter, as any other value the contract does not allow.
func TestAnAuditFilterOutsideTheEnumIsRefused(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		p := e.call("GET", "/api/v1/audit?resource_type=SANDBOX&page_size=0", e.admin, nil).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"resource_type", "page_size"}, fields(p))
		assert.Equal(t, 200, e.call("GET", "/api/v1/audit?resource_type=key", e.admin, nil).StatusCode)
	})
}

// The listing narrows by action, outcome and a time range, each combined
// with the others, and pages through what the filters keep.
func TestAuditFiltersByActionOutcomeAndTime(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		e.createAgent("First")
		e.call("POST", "/api/v1/sandboxes", e.member, validSandboxes["local"]).problem(t, 403, "forbidden")
		time.Sleep(5 * time.Millisecond)
		between := time.Now().UTC()
		time.Sleep(5 * time.Millisecond)
		e.createAgent("Second")
		e.createAgent("Third")
		e.call("POST", "/api/v1/agents", e.admin, map[string]any{"name": ""}).problem(t, 422, "validation_failed")

		assert.Equal(t, []string{"agent.create invalid", "agent.create success", "agent.create success", "agent.create success"},
			actions(e.audit("?action=agent.create")))
		assert.Equal(t, []string{"agent.create success", "agent.create success", "agent.create success", "token.create success", "token.create success"},
			actions(e.audit("?outcome=success")))
		assert.Equal(t, []string{"sandbox.create denied"}, actions(e.audit("?outcome=denied")))
		assert.Equal(t, []string{"agent.create invalid", "agent.create success", "agent.create success"},
			actions(e.audit("?since="+between.Format(time.RFC3339Nano))))
		assert.Equal(t, []string{"agent.create success"},
			actions(e.audit("?action=agent.create&until="+url.QueryEscape(between.Format(time.RFC3339Nano)))))
		assert.Empty(t, e.audit("?action=agent.create&outcome=success&since="+between.Add(time.Hour).Format(time.RFC3339)))

		first := e.call("GET", "/api/v1/audit?action=agent.create&outcome=success&page_size=2", e.admin, nil).json(t)
		require.Len(t, first["items"], 2)
		next := first["next_page_token"].(string)
		require.NotEmpty(t, next)
		rest := e.audit("?action=agent.create&outcome=success&page_size=2&page_token=" + url.QueryEscape(next))
		require.Len(t, rest, 1)
		assert.Contains(t, rest[0]["detail"], "First", "the oldest comes last")
	})
}

// Each bad filter is refused by name, all of them at once.
func TestBadAuditFiltersAreNamed(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		p := e.call("GET", "/api/v1/audit?action=agent.explode&outcome=maybe&since=yesterday&until=2026-13-01", e.admin, nil).
			problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"action", "outcome", "since", "until"}, fields(p))
		p = e.call("GET", "/api/v1/audit?since=2026-01-02T00:00:00Z&until=2026-01-01T00:00:00Z", e.admin, nil).
			problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"until"}, fields(p))
	})
}
