package run_test

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/stretchr/testify/assert"
)

func TestToolTable(t *testing.T) {
	names := map[string]bool{}
	routes := map[string]bool{}
	for _, tool := range run.Tools {
		assert.False(t, names[tool.Name], "%s is listed once", tool.Name)
		names[tool.Name] = true
		route := tool.Method + " " + tool.Path
		assert.False(t, routes[route], "%s serves one tool", route)
		routes[route] = true
		assert.True(t, tool.Default.Valid(), "%s has a policy by default", tool.Name)
		assert.NotEmpty(t, tool.Title, tool.Name)

		// A model reads each argument's description to call the tool.
		schema := tool.InputSchema()
		for name, p := range schema["properties"].(map[string]any) {
			assert.NotEmpty(t, p.(map[string]any)["description"], "%s's argument %s is described", tool.Name, name)
		}
		found, ok := run.LookupTool(tool.Name)
		assert.True(t, ok)
		assert.Equal(t, tool.Name, found.Name)
	}
	_, ok := run.LookupTool("shell")
	assert.False(t, ok)
	assert.Len(t, run.DefaultPolicies(), len(run.Tools))
}
