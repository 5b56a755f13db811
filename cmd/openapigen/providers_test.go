package main

import (
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// marked is a string property whose values are the list called list.
func marked(list string) *openapi3.SchemaRef {
	s := openapi3.NewStringSchema()
	s.Extensions = map[string]any{enumMarker: list}
	return s.NewRef()
}

// spec is the part of the document the provider lists go into.
func spec() *openapi3.T {
	doc := &openapi3.T{Components: &openapi3.Components{Schemas: openapi3.Schemas{}}}
	for _, name := range []string{"Sandbox", "SandboxCreate", "SandboxPatch"} {
		doc.Components.Schemas[name] = openapi3.NewObjectSchema().WithProperty("config", openapi3.NewObjectSchema()).NewRef()
	}
	doc.Components.Schemas["Sandbox"].Value.Properties["provider"] = marked("providers")
	doc.Components.Schemas["Sandbox"].Value.Properties["name"] = openapi3.NewStringSchema().NewRef()
	capabilities := openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema())
	capabilities.Extensions = map[string]any{enumMarker: "capabilities"}
	doc.Components.Schemas["Provider"] = openapi3.NewObjectSchema().WithProperty("capabilities", capabilities).NewRef()
	return doc
}

// The provider enum and the config schemas follow the providers the server
// has, in catalogue order: a new provider needs no annotation.
func TestTheProviderListsFollowTheProviders(t *testing.T) {
	doc := spec()
	kinds := catalogue(append(builtin.Kinds(builtin.Options{}), echotest.Kind{})...)
	require.NoError(t, addProviderConfigs(doc, kinds))
	require.NoError(t, addProviderEnums(doc, kinds))

	sandbox := doc.Components.Schemas["Sandbox"].Value
	var names []any
	for _, k := range kinds {
		names = append(names, k.Describe().Name)
	}
	assert.Equal(t, names, sandbox.Properties["provider"].Value.Enum)
	assert.Equal(t, []any{"opensandbox", "daytona", "echo", "cloudrun", "local"}, names, "echo in its order")
	assert.Empty(t, sandbox.Properties["provider"].Value.Extensions, "the marker is gone")
	assert.Empty(t, sandbox.Properties["name"].Value.Enum, "an unmarked property keeps no list")
	var configs []string
	for _, ref := range sandbox.Properties["config"].Value.OneOf {
		configs = append(configs, ref.Ref)
	}
	assert.Len(t, configs, len(kinds))
	assert.Contains(t, configs, "#/components/schemas/EchoConfig")
	echoConfig := doc.Components.Schemas["EchoConfig"].Value
	assert.Equal(t, []string{"default_packages", "idle_minutes", "keep_files", "max_kept_days", "network", "resources", "timeout", "work_dir"}, echoConfig.Required)
	assert.NotContains(t, echoConfig.Extensions, "x-common", "the form's hint stays out of the contract")

	items := doc.Components.Schemas["Provider"].Value.Properties["capabilities"].Value.Items.Value
	assert.Len(t, items.Enum, len(provider.CapabilityNames()))
	assert.Equal(t, "keep_alive", items.Enum[0])
}

func TestAnUnknownListIsAnError(t *testing.T) {
	doc := spec()
	doc.Components.Schemas["Sandbox"].Value.Properties["provider"] = marked("planets")
	assert.ErrorContains(t, addProviderEnums(doc, nil), "no list called planets")
}
