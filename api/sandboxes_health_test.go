package api_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestATestOfTheSavedConnectionIsItsHealth(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		home := newKeyCatcher(t, "127.0.0.1:0")
		sb := e.createSandbox(map[string]any{"name": "Checked", "provider": "opensandbox", "url": home.URL, "secret": "osk-health-0123456789"})
		path := "/api/v1/sandboxes/" + sb["id"].(string)
		health := func() map[string]any {
			return e.call("GET", path, e.admin, nil).json(t)["health"].(map[string]any)
		}
		require.Equal(t, "unknown", health()["status"])

		// A test from the Edit dialog with only the description changed reaches the provider as saved: it is the health.
		res := e.call("POST", path+"/probe", e.admin, map[string]any{"description": "not saved yet"})
		require.Equal(t, 200, res.StatusCode, "%s", res.body)
		assert.Equal(t, true, res.json(t)["ok"])
		h := health()
		assert.Equal(t, "ok", h["status"])
		assert.NotNil(t, h["checked_at"])
		assert.Len(t, h["history"], 1)
		assert.NotEqual(t, "not saved yet", e.call("GET", path, e.admin, nil).json(t)["description"], "nothing was saved")

		// A test of another url is not the saved sandbox's health.
		res = e.call("POST", path+"/probe", e.admin, map[string]any{"url": "http://127.0.0.1:1", "secret": "osk-elsewhere-0123456789"})
		require.Equal(t, 200, res.StatusCode, "%s", res.body)
		assert.Equal(t, false, res.json(t)["ok"])
		h = health()
		assert.Equal(t, "ok", h["status"])
		assert.Len(t, h["history"], 1)

		audit := e.call("GET", "/api/v1/audit?resource_type=sandbox&resource_id="+sb["id"].(string), e.admin, nil).json(t)
		recorded := 0
		for _, it := range audit["items"].([]any) {
			detail := it.(map[string]any)["detail"].(string)
			if strings.HasPrefix(detail, `probed sandbox "Checked" with changes to description, recorded as its health: ok in `) {
				recorded++
			}
		}
		assert.Equal(t, 1, recorded, "the audit log says the test was recorded as health")
	})
}
