package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/getkin/kin-openapi/openapi3"
)

// addProviderConfigs types a sandbox's `config` as one of the providers'
// config schemas, generated from the same structs the server validates with.
// A config in an answer always has every key, so each schema requires them all.
func addProviderConfigs(doc *openapi3.T) error {
	sandbox := doc.Components.Schemas["Sandbox"]
	if sandbox == nil || sandbox.Value == nil {
		return fmt.Errorf("no Sandbox schema to type the config of")
	}
	var refs openapi3.SchemaRefs
	for _, k := range builtin.Kinds(builtin.Options{}) {
		schema := provider.Schema(k)
		delete(schema, "$schema")
		raw, err := json.Marshal(schema)
		if err != nil {
			return err
		}
		var s openapi3.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%s config schema: %w", k.Name(), err)
		}
		for name := range s.Properties {
			s.Required = append(s.Required, name)
		}
		sort.Strings(s.Required)
		name := strings.ReplaceAll(k.Title(), " ", "") + "Config"
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
