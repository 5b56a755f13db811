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
		doc.Components.Schemas[name] = openapi3.NewObjectSchema().WithProperty("config", openapi3.NewObjectSchema()).
			WithProperty("name", openapi3.NewStringSchema()).NewRef()
		doc.Components.Schemas[name].Value.Properties["provider"] = marked("providers")
	}
	capabilities := openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema())
	capabilities.Extensions = map[string]any{enumMarker: "capabilities"}
	doc.Components.Schemas["ProviderInfo"] = openapi3.NewObjectSchema().WithProperty("capabilities", capabilities).NewRef()
	return doc
}

// The provider enum and the sandbox unions follow the providers the server
// has, in catalogue order: a new provider needs no annotation.
func TestTheProviderListsFollowTheProviders(t *testing.T) {
	doc := spec()
	kinds := catalogue(append(builtin.Kinds(builtin.Options{}), echotest.Kind{})...)
	require.NoError(t, addProviderEnums(doc, kinds))
	require.NoError(t, addProviderConfigs(doc, kinds))

	var names []any
	for _, k := range kinds {
		names = append(names, k.Describe().Name)
	}
	assert.Equal(t, []any{"opensandbox", "e2b", "daytona", "echo", "cloudrun", "kubernetes", "local"}, names, "echo in its order")
	assert.Equal(t, names, doc.Components.Schemas["Provider"].Value.Enum, "one named list of providers")
	assert.Equal(t, "#/components/schemas/Provider", doc.Components.Schemas["SandboxPatch"].Value.Properties["provider"].Ref)
	assert.Empty(t, doc.Components.Schemas["SandboxPatch"].Value.Properties["name"].Value.Enum, "an unmarked property keeps no list")

	for union, config := range map[string]string{"Sandbox": "EchoConfig", "SandboxCreate": "EchoConfigInput"} {
		s := doc.Components.Schemas[union].Value
		require.Len(t, s.OneOf, len(kinds), union)
		require.NotNil(t, s.Discriminator, union)
		assert.Equal(t, "provider", s.Discriminator.PropertyName)
		assert.Equal(t, "#/components/schemas/Echo"+union, s.Discriminator.Mapping["echo"].Ref)
		echo := doc.Components.Schemas["Echo"+union].Value
		assert.Equal(t, []any{"echo"}, echo.Properties["provider"].Value.Enum, "the variant is told apart by its provider")
		assert.Equal(t, "#/components/schemas/"+config, echo.Properties["config"].Ref)
		assert.Contains(t, echo.Properties, "name", "the variant keeps the other properties")
	}
	echoConfig := doc.Components.Schemas["EchoConfig"].Value
	assert.Equal(t, []string{"default_packages", "idle_minutes", "keep_files", "max_kept_days", "network", "pool", "resources", "timeout", "work_dir"},
		echoConfig.Required, "an answer's config has every key")
	assert.Equal(t, []string{"max_idle_minutes", "size"}, echoConfig.Properties["pool"].Value.Required, "…and every key of its objects")
	assert.Empty(t, doc.Components.Schemas["EchoConfigInput"].Value.Required, "a request's config may leave any key out")
	assert.NotContains(t, doc.Components.Schemas["EchoConfig"].Value.Extensions, "x-common", "the form's hint stays out of the contract")

	items := doc.Components.Schemas["ProviderInfo"].Value.Properties["capabilities"].Value.Items.Value
	assert.Len(t, items.Enum, len(provider.CapabilityNames()))
	assert.Equal(t, "keep_alive", items.Enum[0])
}

func TestAnUnknownListIsAnError(t *testing.T) {
	doc := spec()
	doc.Components.Schemas["Sandbox"].Value.Properties["provider"] = marked("planets")
	assert.ErrorContains(t, addProviderEnums(doc, nil), "no list called planets")
}
