package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A sandbox's read shows its warm pool, and a bad pool is refused naming
// each broken key by its path.
func TestASandboxShowsItsPool(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		p := e.call("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Pooled", "provider": "local",
			"config": map[string]any{"pool": map[string]any{"size": -1, "max_idle_minutes": 0, "colour": "red"}}}).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"config.pool.colour", "config.pool.size", "config.pool.max_idle_minutes"}, fields(p))
		assert.Len(t, e.call("GET", "/api/v1/sandboxes", e.member, nil).json(t)["items"], 0, "nothing was saved")

		sb := e.createSandbox(map[string]any{"name": "Pooled", "provider": "local", "config": map[string]any{"pool": map[string]any{"size": 1}}})
		id := sb["id"].(string)
		assert.Equal(t, map[string]any{"size": float64(1), "max_idle_minutes": float64(60)}, sb["config"].(map[string]any)["pool"])
		assert.NotContains(t, sb, "pool", "only a read of the sandbox shows its pool")
		pool := e.call("GET", "/api/v1/sandboxes/"+id, e.member, nil).json(t)["pool"]
		assert.Equal(t, map[string]any{"state": "waiting", "size": float64(1), "ready": float64(0), "creating": float64(0),
			"failures": float64(0), "detail": "", "retry_at": nil}, pool, "nothing is made until the pool's job passes")
	})
}
