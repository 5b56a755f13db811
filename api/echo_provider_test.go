package api_test

import (
	"slices"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoKind is a sixth provider declared in this test package alone: it describes
// itself, its config embeds the common block, and its clients are the
// in-process fake's.
type echoKind struct{ fake *providertest.Fake }

type echoConfig struct {
	Greeting string `json:"greeting" validate:"required,max=40" title:"Greeting" doc:"Said before every command."`
	provider.Common
}

func (c *echoConfig) Validate(provider.Policy) []provider.FieldError { return nil }

func (echoKind) Describe() provider.Descriptor {
	return provider.Descriptor{Name: "echo", Title: "Echo", Description: "Says what it is told.",
		Icon:  []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="9"/></svg>`),
		Order: 25, Capabilities: provider.Interrupt,
		Common: provider.CommonRules{MaxTimeout: 600, TimeoutNote: "echo is quick"}}
}

func (echoKind) NewConfig() provider.Config {
	common := provider.DefaultCommon()
	common.Timeout = 60
	return &echoConfig{Greeting: "hello", Common: common}
}

func (e echoKind) Open(provider.Settings) (provider.Client, error) { return e.fake, nil }

// Adding a provider takes its own package and the line that lists it: it
// is in the catalogue in its place, its config is validated as declared
// (common block included), and its clients pass the conformance suite.
func TestASixthProviderNeedsOnlyItsPackageAndItsLine(t *testing.T) {
	fake := providertest.NewFake(t.TempDir())
	kinds := append(builtin.Kinds(builtin.Options{DataDir: t.TempDir()}), echoKind{fake})
	eachDB(t, func(t *testing.T, e *env) {
		items := e.call("GET", "/api/v1/providers", e.member, nil).json(t)["items"].([]any)
		var names []string
		for _, it := range items {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		require.Equal(t, provider.NewRegistry(provider.Policy{}, nil, kinds...).Names(), names)
		at := slices.Index(names, "echo")
		require.GreaterOrEqual(t, at, 0, "echo is in the catalogue")
		p := items[at].(map[string]any)
		assert.Equal(t, 25.0, p["order"])
		assert.Equal(t, "Echo", p["title"])
		assert.Equal(t, provider.Descriptor{Icon: echoKind{}.Describe().Icon}.IconURL(), p["icon"])
		assert.Equal(t, []any{"interrupt"}, p["capabilities"])
		schema := p["config_schema"].(map[string]any)
		assert.Equal(t, []any{"greeting", "default_packages", "timeout"}, schema["x-order"])
		timeout := schema["properties"].(map[string]any)["timeout"].(map[string]any)
		assert.Equal(t, 600.0, timeout["maximum"])
		assert.Equal(t, "Longest a command may run (echo is quick).", timeout["description"])

		bad := map[string]any{"name": "Echo", "provider": "echo",
			"config": map[string]any{"greeting": "", "timeout": 601, "default_packages": []string{"not a requirement!"}, "colour": "red"}}
		problem := e.call("POST", "/api/v1/sandboxes", e.admin, bad).problem(t, 422, "validation_failed")
		assert.ElementsMatch(t, []string{"config.greeting", "config.timeout", "config.default_packages.0", "config.colour"}, fields(problem))

		probe := e.call("POST", "/api/v1/sandboxes/probe", e.admin, map[string]any{"name": "Echo", "provider": "echo"})
		require.Equal(t, 200, probe.StatusCode, "%s", probe.body)
		assert.Equal(t, true, probe.json(t)["ok"])
	}, func(o *options) { o.kinds = kinds })

	client, err := echoKind{fake}.Open(provider.Settings{})
	require.NoError(t, err)
	providertest.Run(t, client)
}
