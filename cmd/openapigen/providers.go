package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
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

// namedLists are the lists given a component of their own, which every
// marked property refers to, so that generated clients have one type for them.
var namedLists = map[string]string{
	"providers":     "Provider",
	"tool_policies": "ToolPolicy",
}

// addProviderEnums lists the providers (kinds, in catalogue order), the
// capabilities and the other lists the server knows where the annotations
// mark a property or a parameter with enumMarker, so that no annotation
// repeats a list the code declares.
func addProviderEnums(doc *openapi3.T, kinds []provider.Kind) error {
	lists := map[string][]string{
		"capabilities":         provider.CapabilityNames(),
		"audit_resource_types": auxilia.AuditResourceTypes,
		"audit_actions":        auxilia.AuditActions,
		"tool_policies":        toolPolicies(),
	}
	for _, k := range kinds {
		lists["providers"] = append(lists["providers"], k.Describe().Name)
	}
	fill := func(where string, ref *openapi3.SchemaRef, extensions map[string]any) error {
		list, marked := extensions[enumMarker]
		if !marked {
			return nil
		}
		values, ok := lists[fmt.Sprint(list)]
		if !ok {
			return fmt.Errorf("%s: no list called %v", where, list)
		}
		delete(extensions, enumMarker)
		if ref.Value.Items != nil {
			ref = ref.Value.Items
		}
		enum := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}
		for _, v := range values {
			enum.Enum = append(enum.Enum, v)
		}
		if name, ok := namedLists[fmt.Sprint(list)]; ok {
			doc.Components.Schemas[name] = &openapi3.SchemaRef{Value: enum}
			*ref = openapi3.SchemaRef{Ref: "#/components/schemas/" + name, Value: enum}
			return nil
		}
		ref.Value.Enum = enum.Enum
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		for key, prop := range doc.Components.Schemas[name].Value.Properties {
			if prop.Value == nil {
				continue
			}
			if err := fill(name+"."+key, prop, prop.Value.Extensions); err != nil {
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
				if p.Value == nil || p.Value.Schema == nil || p.Value.Schema.Value == nil {
					continue
				}
				// swag puts a parameter's extensions on the parameter.
				for _, ext := range []map[string]any{p.Value.Extensions, p.Value.Schema.Value.Extensions} {
					if err := fill(method+" "+path+" "+p.Value.Name, p.Value.Schema, ext); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// addProviderConfigs types each provider's config from the struct the
// server validates with, and makes a sandbox, in answers (Sandbox) and in
// create requests (SandboxCreate), one of a schema per provider told apart
// by `provider`, so that a generated client's config narrows on it. The
// variants copy every other property the annotations give, whatever they are.
func addProviderConfigs(doc *openapi3.T, kinds []provider.Kind) error {
	unions := []struct {
		name, description string
		input             bool
	}{
		{"Sandbox", "The provider's settings, every default written out; see config_schema in GET /api/v1/providers.", false},
		{"SandboxCreate", "The provider's settings (see config_schema in GET /api/v1/providers); keys left out take their defaults.", true},
	}
	bases := map[string]*openapi3.Schema{}
	for _, u := range unions {
		s := doc.Components.Schemas[u.name]
		if s == nil || s.Value == nil || s.Value.Properties["config"] == nil || s.Value.Properties["provider"] == nil {
			return fmt.Errorf("no %s schema with a provider and a config to type", u.name)
		}
		bases[u.name] = s.Value
	}
	mappings := map[string]map[string]string{}
	variants := map[string]openapi3.SchemaRefs{}
	for _, k := range kinds {
		d := k.Describe()
		prefix := schemaPrefix(d.Title)
		for _, u := range unions {
			config, err := configSchema(k, !u.input)
			if err != nil {
				return fmt.Errorf("%s config schema: %w", d.Name, err)
			}
			configName := prefix + "Config" + map[bool]string{true: "Input", false: ""}[u.input]
			config.Description = fmt.Sprintf("%s: %s", d.Title, u.description)
			doc.Components.Schemas[configName] = &openapi3.SchemaRef{Value: config}

			variant := *bases[u.name]
			variant.Properties = maps.Clone(variant.Properties)
			variant.Properties["provider"] = &openapi3.SchemaRef{Value: &openapi3.Schema{
				Type: &openapi3.Types{openapi3.TypeString}, Enum: []any{d.Name}}}
			variant.Properties["config"] = openapi3.NewSchemaRef("#/components/schemas/"+configName, config)
			variant.Description = fmt.Sprintf("A sandbox of the %s provider.", d.Title)
			variantName := prefix + u.name
			doc.Components.Schemas[variantName] = &openapi3.SchemaRef{Value: &variant}
			path := "#/components/schemas/" + variantName
			variants[u.name] = append(variants[u.name], openapi3.NewSchemaRef(path, &variant))
			if mappings[u.name] == nil {
				mappings[u.name] = map[string]string{}
			}
			mappings[u.name][d.Name] = path
		}
	}
	for _, u := range unions {
		mapping := map[string]openapi3.MappingRef{}
		for name, path := range mappings[u.name] {
			mapping[name] = openapi3.MappingRef{Ref: path}
		}
		doc.Components.Schemas[u.name] = &openapi3.SchemaRef{Value: &openapi3.Schema{
			Description:   bases[u.name].Description,
			OneOf:         variants[u.name],
			Discriminator: &openapi3.Discriminator{PropertyName: "provider", Mapping: mapping},
		}}
	}
	// A patch is told apart by the stored sandbox, not by its body: its
	// config stays a merge patch of whichever provider's settings.
	patch := doc.Components.Schemas["SandboxPatch"]
	if patch == nil || patch.Value.Properties["config"] == nil {
		return fmt.Errorf("no config in SandboxPatch")
	}
	open := true
	c := patch.Value.Properties["config"].Value
	c.AdditionalProperties = openapi3.AdditionalProperties{Has: &open}
	c.Description = "A merge patch of the provider's settings (see config_schema in GET /api/v1/providers): " +
		"keys left out stay as they are, null resets a key to its default; a key the provider does not have is refused."
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
	slices.Sort(s.Required)
}

// configSchema is the JSON Schema of a provider's config. In an answer
// (complete) every key is present; in a request every key may be left out.
func configSchema(k provider.Kind, complete bool) (*openapi3.Schema, error) {
	schema := provider.Schema(k)
	delete(schema, "$schema")
	delete(schema, "x-common")
	renameKeyword(schema, "propertyNames", "x-property-names")
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var s openapi3.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if complete {
		requireAll(&s)
	} else {
		optional(&s)
	}
	return &s, nil
}

// optional drops every required list, nested ones too: what a request
// leaves out takes its default.
func optional(s *openapi3.Schema) {
	s.Required = nil
	for _, p := range s.Properties {
		if p.Value != nil {
			optional(p.Value)
		}
	}
	if s.Items != nil && s.Items.Value != nil {
		optional(s.Items.Value)
	}
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

// schemaPrefix is a provider's title as the start of a schema's name,
// which OpenAPI allows letters, digits and ._- only: its words run
// together, each capitalised ("Kubernetes (agent-sandbox)" is
// KubernetesAgentSandbox, "Cloud Run" CloudRun).
func schemaPrefix(title string) string {
	words := strings.FieldsFunc(title, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, "")
}
