package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/getkin/kin-openapi/openapi3"
)

// enumMarker marks a property whose values are a list the server knows:
// `extensions:"x-enum=providers"` on a field is replaced by that list.
const enumMarker = "x-enum"

// catalogue returns the kinds in catalogue order.
func catalogue(kinds ...provider.Kind) []provider.Kind {
	registry := provider.NewRegistry(provider.Policy{}, nil, kinds...)
	var ordered []provider.Kind
	for _, name := range registry.Names() {
		k, _ := registry.Kind(name)
		ordered = append(ordered, k)
	}
	return ordered
}

// addProviderEnums lists the providers (kinds, in catalogue order) and the
// capabilities where the annotations mark a property with enumMarker, so
// that no annotation repeats a list the providers declare.
func addProviderEnums(doc *openapi3.T, kinds []provider.Kind) error {
	lists := map[string][]string{"capabilities": provider.CapabilityNames()}
	for _, k := range kinds {
		lists["providers"] = append(lists["providers"], k.Describe().Name)
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		for key, prop := range doc.Components.Schemas[name].Value.Properties {
			list, marked := prop.Value.Extensions[enumMarker]
			if !marked {
				continue
			}
			values, ok := lists[fmt.Sprint(list)]
			if !ok {
				return fmt.Errorf("%s.%s: no list called %v", name, key, list)
			}
			delete(prop.Value.Extensions, enumMarker)
			target := prop.Value
			if target.Items != nil {
				target = target.Items.Value
			}
			for _, v := range values {
				target.Enum = append(target.Enum, v)
			}
		}
	}
	return nil
}

// addProviderConfigs types a sandbox's `config` as one of the providers'
// config schemas, generated from the same structs the server validates with.
// A config in an answer always has every key, so each schema requires them all.
func addProviderConfigs(doc *openapi3.T, kinds []provider.Kind) error {
	sandbox := doc.Components.Schemas["Sandbox"]
	if sandbox == nil || sandbox.Value == nil {
		return fmt.Errorf("no Sandbox schema to type the config of")
	}
	var refs openapi3.SchemaRefs
	for _, k := range kinds {
		d := k.Describe()
		schema := provider.Schema(k)
		delete(schema, "$schema")
		delete(schema, "x-common")
		renameKeyword(schema, "propertyNames", "x-property-names")
		raw, err := json.Marshal(schema)
		if err != nil {
			return err
		}
		var s openapi3.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%s config schema: %w", d.Name, err)
		}
		requireAll(&s)
		name := strings.ReplaceAll(d.Title, " ", "") + "Config"
		doc.Components.Schemas[name] = &openapi3.SchemaRef{Value: &s}
		refs = append(refs, openapi3.NewSchemaRef("#/components/schemas/"+name, nil))
	}
	sandbox.Value.Properties["config"] = &openapi3.SchemaRef{Value: &openapi3.Schema{
		OneOf:       refs,
		Description: "The provider's settings, every default written out; see config_schema in GET /api/v1/providers.",
	}}
	// In requests, config is any of those settings: on create each one left
	// out takes its default; a patch merges into the stored ones.
	open := true
	for name, description := range map[string]string{
		"SandboxCreate": "The provider's settings (see config_schema in GET /api/v1/providers); keys left out take their defaults.",
		"SandboxPatch": "A merge patch of the provider's settings (see config_schema in GET /api/v1/providers): " +
			"keys left out stay as they are, null resets a key to its default.",
	} {
		s := doc.Components.Schemas[name]
		if s == nil || s.Value.Properties["config"] == nil {
			return fmt.Errorf("no config in %s", name)
		}
		c := s.Value.Properties["config"].Value
		c.AdditionalProperties = openapi3.AdditionalProperties{Has: &open}
		c.Description = description
	}
	return nil
}

// requireAll requires every property of s, and of each object among them
// (network, resources): an answer's config has every key.
func requireAll(s *openapi3.Schema) {
	for name, prop := range s.Properties {
		s.Required = append(s.Required, name)
		if prop.Value != nil && len(prop.Value.Properties) > 0 {
			requireAll(prop.Value)
		}
	}
	sort.Strings(s.Required)
}

// renameKeyword renames a JSON Schema keyword OpenAPI 3.0 lacks (as
// propertyNames, which the env of a config uses) wherever it appears, so
// the contract keeps what it says as an extension.
func renameKeyword(schema map[string]any, from, to string) {
	for key, value := range schema {
		switch v := value.(type) {
		case map[string]any:
			renameKeyword(v, from, to)
		}
		if key == from {
			schema[to] = value
			delete(schema, from)
		}
	}
}
