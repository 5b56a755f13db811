package api_test

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolFixture is the catalogue as the SPA's tests serve it.
const toolFixture = "../frontend/src/test/tools.fixture.json"

func TestToolCatalogue(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		r := e.call("GET", "/api/v1/tools", e.member, nil)
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		var list struct {
			Items []struct {
				Name          string          `json:"name"`
				Title         string          `json:"title"`
				Description   string          `json:"description"`
				DefaultPolicy string          `json:"default_policy"`
				InputSchema   json.RawMessage `json:"input_schema"`
			} `json:"items"`
		}
		require.NoError(t, json.Unmarshal(r.body, &list))
		var names []string
		schemas := map[string]*openapi3.Schema{}
		for _, tool := range list.Items {
			names = append(names, tool.Name)
			assert.NotEmpty(t, tool.Title, tool.Name)
			assert.Greater(t, len(tool.Description), 80, "%s is described for a model", tool.Name)
			assert.Equal(t, "always_allow", tool.DefaultPolicy, tool.Name)
			var s openapi3.Schema
			require.NoError(t, json.Unmarshal(tool.InputSchema, &s), tool.Name)
			schemas[tool.Name] = &s
		}
		assert.Equal(t, []string{"execute", "ls", "read_file", "write_file", "edit_file", "glob", "grep"}, names,
			"every tool, in the order they are shown")

		valid := func(tool, input string) error {
			var v any
			require.NoError(t, json.Unmarshal([]byte(input), &v))
			return schemas[tool].VisitJSON(v)
		}
		assert.NoError(t, valid("read_file", `{"path":"a.txt","offset":3,"limit":20000}`))
		assert.NoError(t, valid("read_file", `{"path":"a.txt"}`), "offset and limit are optional")
		assert.Error(t, valid("read_file", `{"offset":3}`), "path is required")
		assert.Error(t, valid("read_file", `{"path":"a.txt","limit":20001}`), "limit has the tool's bound")
		assert.Error(t, valid("read_file", `{"path":"a.txt","limit":0}`))
		assert.Error(t, valid("read_file", `{"path":"a.txt","lines":5}`), "no arguments but the tool's")
		assert.NoError(t, valid("execute", `{"command":"ls"}`))
		assert.Error(t, valid("execute", `{"command":"ls","timeout":0}`))
		assert.NoError(t, valid("edit_file", `{"path":"a","old_string":"x","new_string":"y"}`))
		assert.Error(t, valid("edit_file", `{"path":"a","old_string":"x"}`))
		assert.NoError(t, valid("write_file", `{"path":"a","content":"text"}`))
		assert.NoError(t, valid("ls", `{}`))
		assert.Error(t, valid("grep", `{"path":"src"}`), "a search needs its pattern")

		matchesFixture(t, toolFixture, r.body)

		limit := schemas["read_file"].Properties["limit"].Value
		assert.Equal(t, float64(run.MaxReadLimit), *limit.Max, "the schema's bound is the one the tool checks")
		assert.Equal(t, float64(2000), limit.Default)
		assert.NotEmpty(t, schemas["glob"].Properties["pattern"].Value.Description)
	})
}
