package manifest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A file is YAML 1.2: names and values such as NO, on, yes and off stay
// the strings they are written as (YAML 1.1 made them booleans).
func TestParseReadsYAML12(t *testing.T) {
	f, err := Parse([]byte(`
sandboxes:
  - name: NO
    provider: local
    description: on
    config: {network: {default: deny}, 1: one}
agents:
  - {name: yes, emoji: "🤖", color: off, sandbox: NO, tools: {execute: needs_approval}}
  - {name: Off, approval: {with_call: false}}
`))
	require.NoError(t, err)
	assert.Empty(t, f.faults)
	require.Len(t, f.Sandboxes, 1)
	assert.Equal(t, "NO", f.Sandboxes[0].Name)
	assert.Equal(t, "on", *f.Sandboxes[0].Description)
	assert.Equal(t, "one", f.Sandboxes[0].Config["1"], "a key that is not a string is read as one")
	require.Len(t, f.Agents, 2)
	assert.Equal(t, "yes", f.Agents[0].Name)
	assert.Equal(t, "off", *f.Agents[0].Color)
	assert.Equal(t, "NO", f.Agents[0].Sandbox)
	assert.Equal(t, "Off", f.Agents[1].Name)
	assert.False(t, *f.Agents[1].Approval.WithCall, "true and false are still booleans")

	_, err = Parse([]byte("sandboxes: [\n"))
	assert.ErrorContains(t, err, "the file is not YAML")
	_, err = Parse([]byte("- a\n"))
	assert.ErrorContains(t, err, "must be a mapping")
}
