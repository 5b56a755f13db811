package agentsandbox

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

// The template a Sandbox comes from is to control it, so that agent-sandbox
// gives its pod the hash its NetworkPolicy selects by.
func TestASandboxsTemplateIsItsController(t *testing.T) {
	var written sandboxTemplate
	c := clientOf(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/sandboxtemplates/auxilia-sb-1") && r.Method == http.MethodGet:
			writeStatus(w, http.StatusNotFound, "NotFound", "not found")
		case strings.HasSuffix(r.URL.Path, "/sandboxtemplates") && r.Method == http.MethodPost:
			require.NoError(t, json.NewDecoder(r.Body).Decode(&written))
			written.Metadata.UID = "0b6f-own"
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(written)
		case strings.HasSuffix(r.URL.Path, "/sandboxtemplates/python-runtime"):
			_, _ = w.Write([]byte(`{"metadata":{"name":"python-runtime","uid":"7d1e-named"},"spec":{"podTemplate":{"spec":{}}}}`))
		default:
			http.NotFound(w, r)
		}
	}, nil)
	b, err := c.blueprintFor(t.Context(), "create", provider.Labels{Sandbox: "sb-1"})
	require.NoError(t, err)
	assert.Equal(t, []ownerReference{{APIVersion: extensionVersion, Kind: "SandboxTemplate",
		Name: "auxilia-sb-1", UID: "0b6f-own", Controller: true}}, b.ownerReferences())
	assert.Equal(t, policyManaged, written.Spec.NetworkPolicyManagement)
	require.NotNil(t, written.Spec.NetworkPolicy, "the image's template carries its network")
	assert.NotEmpty(t, written.Spec.NetworkPolicy.Egress)

	c.cfg.Image, c.cfg.Template = "", "python-runtime"
	b, err = c.blueprintFor(t.Context(), "create", provider.Labels{Sandbox: "sb-1"})
	require.NoError(t, err)
	assert.Equal(t, []ownerReference{{APIVersion: extensionVersion, Kind: "SandboxTemplate",
		Name: "python-runtime", UID: "7d1e-named", Controller: true}}, b.ownerReferences())

	assert.Nil(t, blueprint{}.ownerReferences(), "no template read: no reference, which the API server would refuse")
}
