package api_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run start that would pass the instances quota answers 429
// quota_exceeded naming the quota, its limit and its use, with a
// Retry-After; the thread that has its instance keeps it, and the
// workspace shows its quotas with their use and alert level.
func TestARunStartPastTheQuotaAnswers429(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		e.db.SetQuotaDefaults(auxilia.Quotas{Instances: 1, InstanceHours: 100})
		sb := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token}).json(t)
		agent := e.createAgent("Runner")
		threads := "/api/v1/agents/" + agent["id"].(string) + "/threads/"
		r := e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)

		require.Equal(t, 201, e.send("POST", threads+"a/runs", e.member, nil).StatusCode)
		refused := e.call("POST", threads+"b/runs", e.member, nil)
		p := refused.problem(t, 429, "quota_exceeded")
		assert.Equal(t, "instances", p["quota"])
		assert.EqualValues(t, 1, p["limit"])
		assert.EqualValues(t, 1, p["used"])
		assert.Contains(t, p["detail"], "instances quota is used up: 1 of 1 live instances at once")
		assert.Equal(t, "60", refused.Header.Get("Retry-After"))
		assert.Equal(t, 201, e.send("POST", threads+"a/runs", e.member, nil).StatusCode, "a thread's own instance is never refused")
		assert.Equal(t, 1, srv.Instances(), "nothing more was made at the provider")

		ws := e.call("GET", "/api/v1/workspace", e.member, nil).json(t)
		assert.Equal(t, []any{
			map[string]any{"name": "instances", "limit": float64(1), "default": true, "used": float64(1), "alert": float64(100)},
			map[string]any{"name": "instance_hours", "limit": float64(100), "default": true, "used": float64(0), "alert": float64(0)},
			map[string]any{"name": "threads_per_agent", "limit": float64(0), "default": true, "used": float64(1), "alert": float64(0)},
		}, ws["quotas"])
		assert.Equal(t, map[string]any{"limit": float64(0), "default": true, "estimated_cost": nil, "currency": "USD", "alert": float64(0)},
			ws["cost_budget"], "no budget: no cost is measured")
		other := e.call("GET", "/api/v1/workspace", e.foreign, nil).json(t)["quotas"].([]any)
		assert.Equal(t, float64(0), other[0].(map[string]any)["used"], "another workspace's use is its own")
	}, func(o *options) { o.kinds = kinds })
}

// The workspace's alerts list each crossing once, newest first, with its
// webhook delivery; only admins read them, and a bad limit is named.
func TestAlertsListTheCrossings(t *testing.T) {
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echotest.Kind{})
	eachDB(t, func(t *testing.T, e *env) {
		srv := echotest.NewServer(t)
		e.db.SetQuotaDefaults(auxilia.Quotas{ThreadsPerAgent: 2})
		sb := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Echo", "provider": "echo", "url": srv.URL, "secret": srv.Token}).json(t)
		agent := e.createAgent("Runner")
		threads := "/api/v1/agents/" + agent["id"].(string) + "/threads/"
		require.Equal(t, 200, e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member, map[string]any{"sandbox_id": sb["id"]}).StatusCode)
		require.Equal(t, 201, e.send("POST", threads+"a/runs", e.member, nil).StatusCode)
		require.Equal(t, 201, e.send("POST", threads+"b/runs", e.member, nil).StatusCode)

		items := e.call("GET", "/api/v1/alerts", e.admin, nil).json(t)["items"].([]any)
		require.Len(t, items, 1, "50 %% alerts nobody; 100 %% once")
		a := items[0].(map[string]any)
		assert.Equal(t, "threads_per_agent", a["subject"])
		assert.EqualValues(t, 100, a["level"])
		assert.EqualValues(t, 2, a["used"])
		assert.EqualValues(t, 2, a["limit"])
		assert.Equal(t, "threads_per_agent quota 100% used: 2 of 2", a["detail"])
		assert.Equal(t, map[string]any{"state": "off", "attempts": float64(0), "last_error": "", "next_attempt_at": nil, "delivered_at": nil}, a["webhook"])

		assert.Equal(t, 403, e.call("GET", "/api/v1/alerts", e.member, nil).StatusCode)
		p := e.call("GET", "/api/v1/alerts?limit=0", e.admin, nil).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"limit"}, fields(p))
		assert.Empty(t, e.call("GET", "/api/v1/alerts", e.foreign, nil).json(t)["items"], "another workspace's alerts are its own")
	}, func(o *options) { o.kinds = kinds })
}
