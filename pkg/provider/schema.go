package provider

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/validation"
)

// Schema describes a kind's config as a JSON Schema, generated from the same
// struct, tags and defaults that decoding and validation use, so that a form
// rendered from it can never drift from what the server accepts.
//
// Tags read: `json` (the key), `validate` (bounds, enums, formats),
// `title` (the field's label) and `doc` (its help text). The keys of the
// embedded Common block are listed in "x-common", so that a form can show
// them as one section for every provider.
func Schema(k Kind) map[string]any {
	d := k.Describe()
	cfg := k.NewConfig()
	out := objectSchema(reflect.ValueOf(cfg).Elem())
	d.Common.schema(out["properties"].(map[string]any))
	schemaCeilings(d.Ceilings, out["properties"].(map[string]any))
	if t, ok := cfg.(SchemaTuner); ok {
		t.TuneSchema(out)
	}
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	out["title"] = d.Title + " settings"
	out["x-common"] = CommonKeys()
	return out
}

// SchemaTuner is a config whose schema depends on the server it runs on:
// TuneSchema edits the object schema Schema made from its struct and tags
// (its "properties" and "x-order"), such as an enum narrowed to what this
// server offers, with the reason, or a setting left out.
type SchemaTuner interface {
	TuneSchema(schema map[string]any)
}

// objectSchema describes a struct's exported fields, v holding their
// defaults; an object among them (network, resources) is described alike.
func objectSchema(v reflect.Value) map[string]any {
	props := map[string]any{}
	order := []string{}
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := validation.JSONName(f)
		if !f.IsExported() || f.Anonymous || name == "" {
			continue
		}
		field := v.FieldByIndex(f.Index)
		p := fieldSchema(f.Type, f.Tag.Get("validate"))
		if f.Type.Kind() == reflect.Struct {
			p = objectSchema(field)
		}
		p["default"] = field.Interface()
		if t := f.Tag.Get("title"); t != "" {
			p["title"] = t
		}
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		props[name] = p
		order = append(order, name)
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props, "x-order": order}
}

// fieldSchema maps a Go type and its validate tag to JSON Schema keywords.
func fieldSchema(t reflect.Type, tag string) map[string]any {
	rules, itemRules, _ := strings.Cut(tag, ",dive")
	itemRules = strings.TrimPrefix(itemRules, ",")
	out := map[string]any{}
	switch t.Kind() {
	case reflect.String:
		out["type"] = "string"
	case reflect.Bool:
		out["type"] = "boolean"
	case reflect.Int, reflect.Int32, reflect.Int64:
		out["type"] = "integer"
	case reflect.Float32, reflect.Float64:
		out["type"] = "number"
	case reflect.Map:
		out["type"] = "object"
		keyRules, valueRules, ok := strings.Cut(strings.TrimPrefix(itemRules, "keys,"), ",endkeys")
		if !ok {
			keyRules, valueRules = "", itemRules
		}
		out["additionalProperties"] = fieldSchema(t.Elem(), strings.TrimPrefix(valueRules, ","))
		if keyRules != "" {
			out["propertyNames"] = fieldSchema(t.Key(), keyRules)
		}
	case reflect.Slice:
		out["type"] = "array"
		out["items"] = fieldSchema(t.Elem(), itemRules)
	}
	for _, rule := range strings.Split(rules, ",") {
		name, param, _ := strings.Cut(rule, "=")
		applyRule(out, t.Kind(), name, param)
	}
	return out
}

func applyRule(out map[string]any, kind reflect.Kind, name, param string) {
	var n any
	i, numErr := strconv.Atoi(param)
	n = i
	if f, err := strconv.ParseFloat(param, 64); numErr != nil && err == nil {
		n, numErr = f, nil
	}
	switch {
	case (name == "min" || name == "gte") && numErr == nil:
		out[boundKey(kind, "minimum", "minLength", "minItems")] = n
	case (name == "max" || name == "lte") && numErr == nil:
		out[boundKey(kind, "maximum", "maxLength", "maxItems")] = n
	case name == "oneof":
		out["enum"] = strings.Fields(param)
	case name == "unique":
		out["uniqueItems"] = true
	case validation.IsFormat(name):
		out["format"] = strings.ReplaceAll(name, "_", "-")
	}
}

func boundKey(kind reflect.Kind, number, text, list string) string {
	switch kind {
	case reflect.String:
		return text
	case reflect.Slice:
		return list
	case reflect.Map:
		return strings.Replace(list, "Items", "Properties", 1)
	default:
		return number
	}
}
