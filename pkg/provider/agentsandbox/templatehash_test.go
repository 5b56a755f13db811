package agentsandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The values are NameHash's of agent-sandbox v1.0.1
// (controllers/sandbox_controller.go), computed by it.
func TestTheTemplatesHashIsAgentSandboxs(t *testing.T) {
	for name, want := range map[string]string{
		"":               "811c9dc5",
		"auxilia-image":  "d0aa6552",
		"auxilia-sb-1":   "8d13362a",
		"python-runtime": "7c7dd1d6",
		"test-template":  "69155462",
	} {
		assert.Equal(t, want, nameHash(name), "%q", name)
	}
}

func TestSandboxesCarryTheHashOfTheirTemplatesName(t *testing.T) {
	image := &Client{cfg: DefaultConfig()}
	assert.Equal(t, "8d13362a", image.sandboxLabels(provider.Labels{Sandbox: "sb-1"})[templateHashLabel], "the image's own template: auxilia-sb-1")

	named := DefaultConfig()
	named.Image, named.Template = "", "python-runtime"
	assert.Equal(t, "7c7dd1d6", (&Client{cfg: named}).sandboxLabels(provider.Labels{Sandbox: "sb-1"})[templateHashLabel])
}
