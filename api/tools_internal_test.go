package api

import (
	"maps"
	"slices"
	"testing"

	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/stretchr/testify/assert"
)

func TestEveryToolHasOneRESTHandler(t *testing.T) {
	assert.ElementsMatch(t, run.ToolNames(), slices.Collect(maps.Keys(toolHandlers)),
		"a handler for each tool of run.Tools, and none for a tool it does not list")
}
