package api_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	sandboxes "github.com/auxilia/sandboxes"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/token"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHealthAndSpec(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		assert.Equal(t, `{"status":"ok"}`, strings.TrimSpace(string(e.call("GET", "/healthz", "", nil).body)))
		assert.Equal(t, 200, e.call("GET", "/readyz", "", nil).StatusCode)
		spec := e.call("GET", "/api/v1/openapi.yaml", "", nil)
		assert.Equal(t, 200, spec.StatusCode)
		assert.Equal(t, string(sandboxes.OpenAPI), string(spec.body))

		require.NoError(t, e.db.Close())
		e.call("GET", "/readyz", "", nil).problem(t, 503, "service_unavailable")
		assert.Equal(t, 200, e.call("GET", "/healthz", "", nil).StatusCode, "liveness does not depend on the database")
	})
}

func TestAuthentication(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		r := e.call("GET", "/api/v1/me", "", nil)
		r.problem(t, 401, "unauthorized")
		assert.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
		e.call("GET", "/api/v1/me", "aux_not-a-token", nil).problem(t, 401, "unauthorized")
		e.call("GET", "/api/v1/me", "", nil, "Authorization", "Basic YWxhZGRpbjpvcGVu").problem(t, 401, "unauthorized")
		e.call("GET", "/api/v1/nowhere", "", nil).problem(t, 404, "not_found")

		me := e.call("GET", "/api/v1/me", e.member, nil)
		require.Equal(t, 200, me.StatusCode)
		m := me.json(t)
		assert.Equal(t, "member", m["role"])
		assert.Equal(t, "member@default", m["name"])
		assert.Equal(t, "default", m["workspace"].(map[string]any)["name"])

		ws := e.call("GET", "/api/v1/workspace", e.foreign, nil).json(t)
		assert.Equal(t, "other", ws["name"])
	})
}

func TestRoles(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		e.call("GET", "/api/v1/tokens", e.member, nil).problem(t, 403, "forbidden")
		e.call("POST", "/api/v1/tokens", e.member, map[string]any{"name": "x"}).problem(t, 403, "forbidden")
		assert.Equal(t, 200, e.call("GET", "/api/v1/tokens", e.admin, nil).StatusCode)
	})
}

func TestTokensLifecycle(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		r := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "ci", "role": "member"})
		require.Equal(t, 201, r.StatusCode, string(r.body))
		created := r.json(t)
		value := created["token"].(string)
		assert.True(t, strings.HasPrefix(value, token.Prefix))
		assert.Equal(t, "/api/v1/tokens/"+created["id"].(string), r.Header.Get("Location"))
		assert.Equal(t, 200, e.call("GET", "/api/v1/me", value, nil).StatusCode, "a new token works at once")

		list := e.call("GET", "/api/v1/tokens", e.admin, nil)
		assert.NotContains(t, string(list.body), value, "a list never shows token values")
		assert.NotContains(t, string(list.body), `"token"`)

		// Another workspace cannot see or revoke it.
		e.call("DELETE", "/api/v1/tokens/"+created["id"].(string), e.foreign, nil).problem(t, 404, "not_found")
		assert.NotContains(t, string(e.call("GET", "/api/v1/tokens", e.foreign, nil).body), created["id"].(string))
		e.call("DELETE", "/api/v1/tokens/not-a-uuid", e.admin, nil).problem(t, 404, "not_found")

		require.Equal(t, 204, e.call("DELETE", "/api/v1/tokens/"+created["id"].(string), e.admin, nil).StatusCode)
		e.call("GET", "/api/v1/me", value, nil).problem(t, 401, "unauthorized")
		e.call("DELETE", "/api/v1/tokens/"+created["id"].(string), e.admin, nil).problem(t, 404, "not_found")

		role := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "plain"}).json(t)["role"]
		assert.Equal(t, "member", role, "role defaults to the least privilege")
	})
}

func TestErrorsAreProblems(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		p := e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": " ", "role": "owner"}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"name", "role"}, fields(p), "every broken field at once")

		p = e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": 5}).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"name"}, fields(p))

		e.call("POST", "/api/v1/tokens", e.admin, `{"name":`).problem(t, 400, "malformed_request")
		e.call("POST", "/api/v1/tokens", e.admin, `{"name":"a","colour":"red"}`).problem(t, 400, "malformed_request")
		e.call("POST", "/api/v1/tokens", e.admin, `{"name":"a"} {}`).problem(t, 400, "malformed_request")
		e.call("POST", "/api/v1/tokens", e.admin, `[]`).problem(t, 400, "malformed_request")
		e.call("POST", "/api/v1/tokens", e.admin, "{\"name\":\"\xff\"}").problem(t, 400, "malformed_request")
		e.call("POST", "/api/v1/tokens", e.admin, nil).problem(t, 400, "malformed_request")
		p = e.call("POST", "/api/v1/tokens", e.admin, `{"name\u0000":"a"}`).problem(t, 400, "malformed_request")
		assert.Contains(t, p["detail"], "name holds a NUL")
		p = e.call("POST", "/api/v1/tokens", e.admin, `"a\u0000"`).problem(t, 400, "malformed_request")
		assert.Contains(t, p["detail"], "must be a JSON object")
		e.call("POST", "/api/v1/tokens", e.admin, `name=a`, "Content-Type", "application/x-www-form-urlencoded").
			problem(t, 415, "unsupported_media_type")
		big := `{"name":"` + strings.Repeat("a", 70<<10) + `"}`
		e.call("POST", "/api/v1/tokens", e.admin, big).problem(t, 413, "payload_too_large")

		e.call("GET", "/api/v1/nowhere", e.admin, nil).problem(t, 404, "not_found")
		e.call("GET", "/nowhere", "", nil).problem(t, 404, "not_found")
		e.call("PUT", "/api/v1/tokens", e.admin, map[string]any{}).problem(t, 405, "method_not_allowed")
		e.call("GET", "/api/v1/tokens?page_size=0", e.admin, nil).problem(t, 422, "validation_failed")
	})
}

func TestPanicsAreInternalErrors(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		e.echo.GET("/api/v1/test-panic", func(echo.Context) error { panic("secret detail s3cr3t") })
		r := e.call("GET", "/api/v1/test-panic", e.admin, nil, "X-Request-ID", "req-42")
		p := r.problem(t, 500, "internal")
		assert.Equal(t, "internal error", p["detail"])
		assert.NotContains(t, string(r.body), "s3cr3t")
		assert.Equal(t, "req-42", r.Header.Get("X-Request-ID"))
		assert.Contains(t, e.logs.String(), `"request_id":"req-42"`)
		assert.Contains(t, e.logs.String(), "s3cr3t", "the log keeps the detail")
	})
}

func TestRequestIDs(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		assert.Equal(t, "abc-1", e.call("GET", "/healthz", "", nil, "X-Request-ID", "abc-1").Header.Get("X-Request-ID"))
		forged := e.call("GET", "/healthz", "", nil, "X-Request-ID", "a b\" {").Header.Get("X-Request-ID")
		assert.NotEqual(t, "a b\" {", forged)
		assert.Len(t, forged, 24, "a fresh id replaces one that could forge log lines")
	})
}

func TestPagination(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		for i := 0; i < 4; i++ {
			require.Equal(t, 201, e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "t"}).StatusCode)
		}
		var ids []string
		next := ""
		for pages := 0; pages < 10; pages++ {
			r := e.call("GET", "/api/v1/tokens?page_size=2&page_token="+next, e.admin, nil).json(t)
			for _, it := range r["items"].([]any) {
				ids = append(ids, it.(map[string]any)["id"].(string))
			}
			if next = r["next_page_token"].(string); next == "" {
				break
			}
		}
		assert.Len(t, ids, 6, "two fixture tokens and four new ones, each once")
		p := e.call("GET", "/api/v1/tokens?page_token=garbage", e.admin, nil).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"page_token"}, fields(p))
	})
}

func TestIdempotencyKey(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		body := map[string]any{"name": "once"}
		first := e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "k1")
		require.Equal(t, 201, first.StatusCode)
		again := e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "k1")
		assert.Equal(t, 201, again.StatusCode)
		assert.Equal(t, string(first.body), string(again.body), "a retry gets the first answer")
		assert.Equal(t, first.Header.Get("Location"), again.Header.Get("Location"))
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))

		e.call("POST", "/api/v1/tokens", e.admin, map[string]any{"name": "other"}, "Idempotency-Key", "k1").
			problem(t, 422, "idempotency_key_reused")

		// The key is scoped to the token: another admin may use the same one.
		other := e.call("POST", "/api/v1/tokens", e.foreign, body, "Idempotency-Key", "k1")
		assert.Equal(t, 201, other.StatusCode)
		assert.NotEqual(t, first.json(t)["id"], other.json(t)["id"])

		// Refusals are replayed too; server errors are not kept.
		bad := map[string]any{"name": ""}
		e.call("POST", "/api/v1/tokens", e.admin, bad, "Idempotency-Key", "k2").problem(t, 422, "validation_failed")
		assert.Equal(t, "true", e.call("POST", "/api/v1/tokens", e.admin, bad, "Idempotency-Key", "k2").Header.Get("Idempotent-Replayed"))

		e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", strings.Repeat("k", 256)).problem(t, 400, "malformed_request")

		n := 0
		for _, it := range e.call("GET", "/api/v1/tokens", e.admin, nil).json(t)["items"].([]any) {
			if it.(map[string]any)["name"] == "once" {
				n++
			}
		}
		assert.Equal(t, 1, n, "one token for three requests with one key")
	})
}

func TestIdempotencyKeyWhileInFlight(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		body := `{"name":"slow"}`
		// Another replica has claimed the key and is still working on it.
		claim := e.claimKey(e.admin, "POST /api/v1/tokens", body, "k")

		e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "k").problem(t, 409, "request_in_flight")
		e.call("POST", "/api/v1/tokens", e.admin, `{"name":"other"}`, "Idempotency-Key", "k").problem(t, 422, "idempotency_key_reused")

		// Past the longest a create may take, its replica is presumed dead: a retry runs.
		claim.age(6 * time.Minute)
		assert.Equal(t, 201, e.call("POST", "/api/v1/tokens", e.admin, body, "Idempotency-Key", "k").StatusCode)
	})
}

// A run start may take as long as making an instance: its key stays
// claimed for that long, where another create's would have been freed.
func TestARunStartKeepsItsKeyAsLongAsItMayTake(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		agent := e.createAgent("Slow starter")
		path := "/api/v1/agents/" + agent["id"].(string) + "/threads/t/runs"
		e.claimKey(e.member, "POST "+path, "", "k").age(6 * time.Minute)
		e.call("POST", path, e.member, nil, "Idempotency-Key", "k").problem(t, 409, "request_in_flight")
	}, func(o *options) { o.runStartTimeout = time.Hour })
}

// claimedKey is an Idempotency-Key claimed as a replica claims it.
type claimedKey struct {
	e   *env
	key string
}

// claimKey claims key for a request (method and path, then body) by tok's
// token, as a replica still working on it would have.
func (e *env) claimKey(tok, request, body, key string) claimedKey {
	me := e.call("GET", "/api/v1/me", tok, nil).json(e.t)
	sum := sha256.Sum256([]byte(request + "\n" + body))
	long := time.Now().Add(-time.Hour)
	prev, err := e.db.System("test").Requests().Claim(context.Background(), me["token_id"].(string), key, hex.EncodeToString(sum[:]), long, long)
	require.NoError(e.t, err)
	require.Nil(e.t, prev)
	return claimedKey{e, key}
}

// age makes the claim as old as by: claimed that long ago.
func (k claimedKey) age(by time.Duration) {
	sqlDB, err := k.e.db.SQL()
	require.NoError(k.e.t, err)
	query := "UPDATE idempotency_keys SET created_at = ? WHERE idem_key = ?"
	if k.e.db.Dialect() == store.Postgres {
		query = "UPDATE idempotency_keys SET created_at = $1 WHERE idem_key = $2"
	}
	_, err = sqlDB.ExecContext(context.Background(), query, store.Now().Add(-by), k.key)
	require.NoError(k.e.t, err)
}

func TestTokenTouch(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		require.Equal(t, 200, e.call("GET", "/api/v1/me", e.member, nil).StatusCode)
		list := e.call("GET", "/api/v1/tokens", e.admin, nil).json(t)
		for _, it := range list["items"].([]any) {
			tok := it.(map[string]any)
			if tok["name"] == "member@default" {
				assert.NotNil(t, tok["last_used_at"])
			}
		}
	})
}
