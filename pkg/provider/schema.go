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
	v := reflect.ValueOf(cfg).Elem()
	props := map[string]any{}
	var order []string
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := validation.JSONName(f)
		if !f.IsExported() || f.Anonymous || name == "" {
			continue
		}
		p := fieldSchema(f.Type, f.Tag.Get("validate"))
		p["default"] = v.FieldByIndex(f.Index).Interface()
		if t := f.Tag.Get("title"); t != "" {
			p["title"] = t
		}
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		props[name] = p
		order = append(order, name)
	}
	d.Common.schema(props)
	return map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                d.Title + " settings",
		"type":                 "object",
		"additionalProperties": false,
		"properties":           props,
		"x-order":              order,
		"x-common":             CommonKeys(),
	}
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
	case reflect.Slice:
		out["type"] = "array"
		out["items"] = fieldSchema(t.Elem(), itemRules)
	case reflect.Struct:
		objectSchema(out, t)
	}
	for _, rule := range strings.Split(rules, ",") {
		name, param, _ := strings.Cut(rule, "=")
		applyRule(out, t.Kind(), name, param)
	}
	return out
}

// objectSchema describes a nested block (the pool) as an object of its
// fields, each with its bounds, title and help.
func objectSchema(out map[string]any, t reflect.Type) {
	props := map[string]any{}
	var order []string
	for _, f := range reflect.VisibleFields(t) {
		name := validation.JSONName(f)
		if !f.IsExported() || name == "" {
			continue
		}
		p := fieldSchema(f.Type, f.Tag.Get("validate"))
		if t := f.Tag.Get("title"); t != "" {
			p["title"] = t
		}
		if d := f.Tag.Get("doc"); d != "" {
			p["description"] = d
		}
		props[name] = p
		order = append(order, name)
	}
	out["type"] = "object"
	out["additionalProperties"] = false
	out["properties"] = props
	out["x-order"] = order
}

func applyRule(out map[string]any, kind reflect.Kind, name, param string) {
	n, numErr := strconv.Atoi(param)
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
	default:
		return number
	}
}
