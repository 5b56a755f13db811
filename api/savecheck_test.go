package api_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A provider that can tell at save what it refuses of a config is asked:
// an E2B template that does not exist is a 422 on the field, in E2B's words.
func TestATemplateTheProviderDoesNotHaveIsRefusedAtSave(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake := e2btest.Start(t, e2btest.Options{})
		body := func(template string) map[string]any {
			return map[string]any{"name": "E2B " + template, "provider": "e2b", "url": fake.URL(), "secret": e2btest.DefaultKey,
				"config": map[string]any{"template": template, "envd_url": fake.EnvdURL()}}
		}
		p := e.call("POST", "/api/v1/sandboxes", e.admin, body("no-such-template")).problem(t, 422, "validation_failed")
		assert.Equal(t, []string{"config.template"}, fields(p))
		require.Len(t, p["errors"], 1)
		assert.Contains(t, p["errors"].([]any)[0].(map[string]any)["message"], "template 'no-such-template' not found")

		r := e.call("POST", "/api/v1/sandboxes", e.admin, body(e2btest.BaseTemplate))
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
	})
}
