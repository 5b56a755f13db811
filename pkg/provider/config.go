package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/auxilia/sandboxes/pkg/validation"
)

// DecodeConfig reads raw (a JSON object; empty or null for all defaults) over
// the kind's defaults. A key set to null keeps its default; an object's keys
// (network's, resources') are read one by one alike. Every unknown key and
// every value of the wrong type is reported, not just the first. Keys of an
// older shape are read first by the config's Upgrade, if it has one.
func DecodeConfig(k Kind, raw json.RawMessage) (Config, []FieldError) {
	cfg := k.NewConfig()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return cfg, nil
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(raw, &values); err != nil {
		return cfg, []FieldError{{Field: "", Message: "must be an object"}}
	}
	if u, ok := cfg.(Upgrader); ok {
		u.Upgrade(values)
	}
	return cfg, decodeObject(reflect.ValueOf(cfg).Elem(), values, "", k.Describe().Title)
}

// Upgrader is a Config that still reads keys an older version stored: it
// moves them where they live now in values, before they are decoded.
type Upgrader interface {
	Upgrade(values map[string]json.RawMessage)
}

// decodeObject sets target's fields from values, reporting each bad key
// under prefix.
func decodeObject(target reflect.Value, values map[string]json.RawMessage, prefix, title string) []FieldError {
	fields := fieldsByJSONName(target.Type())
	var errs []FieldError
	for _, key := range slices.Sorted(maps.Keys(values)) {
		f, ok := fields[key]
		if !ok {
			errs = append(errs, FieldError{Field: prefix + key, Message: fmt.Sprintf("is not a setting of %s sandboxes", title)})
			continue
		}
		value := bytes.TrimSpace(values[key])
		if string(value) == "null" {
			continue
		}
		field := target.FieldByIndex(f.Index)
		var nested map[string]json.RawMessage
		if f.Type.Kind() == reflect.Struct && len(value) > 0 && value[0] == '{' && json.Unmarshal(value, &nested) == nil {
			errs = append(errs, decodeObject(field, nested, prefix+key+".", title)...)
			continue
		}
		ptr := reflect.New(f.Type)
		if err := json.Unmarshal(value, ptr.Interface()); err != nil {
			errs = append(errs, FieldError{Field: prefix + key, Message: "must be " + describeType(f.Type, err)})
			continue
		}
		field.Set(ptr.Elem())
	}
	return errs
}

// MoveKey moves values[from] to key to of the object at values[object]
// (making it), unless that is set already: how an Upgrade brings a key
// of an older shape home.
func MoveKey(values map[string]json.RawMessage, from, object, to string) {
	old, ok := values[from]
	if !ok {
		return
	}
	delete(values, from)
	var inner map[string]json.RawMessage
	if raw, ok := values[object]; ok && json.Unmarshal(raw, &inner) != nil {
		return // not an object: decoding names it
	}
	if inner == nil { // absent, or null
		inner = map[string]json.RawMessage{}
	}
	if _, set := inner[to]; !set {
		inner[to] = old
	}
	values[object], _ = json.Marshal(inner)
}

// ValidateConfig checks cfg, a config of k, by its tags, by the rules of the
// common block and by its provider's hook, naming each broken field once.
func ValidateConfig(k Kind, cfg Config, p Policy) []FieldError {
	var out []FieldError
	seen := map[string]bool{}
	add := func(errs []FieldError) {
		for _, fe := range errs {
			if !seen[fe.Field] {
				out = append(out, fe)
				seen[fe.Field] = true
			}
		}
	}
	var tagged []FieldError
	for _, fe := range validation.Struct(cfg) {
		// A key of the common block is named as the config's own.
		tagged = append(tagged, FieldError{Field: strings.TrimPrefix(fe.Field, commonEmbedding), Message: fe.Message})
	}
	d := k.Describe()
	// First: a field above its ceiling is named with the operator's bound,
	// not with the provider's own.
	add(CheckCeilings(d.Ceilings, cfg))
	add(tagged)
	add(d.Common.validate(cfg.common(), d, k.NewConfig().common()))
	add(lifecycleRefusals(d, cfg.common()))
	add(d.Common.unreachable(cfg.common(), d.Title))
	add(cfg.Validate(p))
	return out
}

// EncodeConfig writes cfg as JSON with every field present.
func EncodeConfig(cfg Config) (json.RawMessage, error) {
	return json.Marshal(cfg)
}

func fieldsByJSONName(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		if name := validation.JSONName(f); name != "" {
			out[name] = f
		}
	}
	return out
}

func describeType(t reflect.Type, err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Type.Kind() == reflect.String && t.Kind() == reflect.Slice {
		return "a list of strings"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "a list of strings"
	case reflect.Map:
		return "an object of strings"
	case reflect.Struct:
		return "an object"
	default:
		return "of another type"
	}
}
