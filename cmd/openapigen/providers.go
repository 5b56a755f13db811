package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
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
	lists := map[string][]string{"capabilities": provider.CapabilityNames(), "audit_resource_types": auxilia.AuditResourceTypes}
	for _, k := range kinds {
		lists["providers"] = append(lists["providers"], k.Describe().Name)
	}
	fill := func(where string, s *openapi3.Schema, extensions map[string]any) error {
		list, marked := extensions[enumMarker]
		if !marked {
			return nil
		}
		values, ok := lists[fmt.Sprint(list)]
		if !ok {
			return fmt.Errorf("%s: no list called %v", where, list)
		}
		delete(extensions, enumMarker)
		if s.Items != nil {
			s = s.Items.Value
		}
		for _, v := range values {
			s.Enum = append(s.Enum, v)
		}
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		for key, prop := range doc.Components.Schemas[name].Value.Properties {
			if err := fill(name+"."+key, prop.Value, prop.Value.Extensions); err != nil {
				return err
			}
		}
	}
	if doc.Paths == nil {
		return nil
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			for _, p := range op.Parameters {
				if p.Value == nil || p.Value.Schema == nil {
					continue
				}
				// swag puts a parameter's extensions on the parameter.
				for _, ext := range []map[string]any{p.Value.Extensions, p.Value.Schema.Value.Extensions} {
					if err := fill(method+" "+path+" "+p.Value.Name, p.Value.Schema.Value, ext); err != nil {
						return err
					}
				}
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
		raw, err := json.Marshal(schema)
		if err != nil {
			return err
		}
		var s openapi3.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%s config schema: %w", d.Name, err)
		}
		for name := range s.Properties {
			s.Required = append(s.Required, name)
		}
		sort.Strings(s.Required)
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
