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
// the kind's defaults. A key set to null keeps its default. Every unknown key
// and every value of the wrong type is reported, not just the first.
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
	return cfg, decodeObject(reflect.ValueOf(cfg).Elem(), values, "", k.Describe().Title)
}

// decodeObject sets target's fields from values, over what target holds:
// a key left out or null keeps it. A nested object (the pool block) is read
// the same way, its keys named by their path ("pool.size").
func decodeObject(target reflect.Value, values map[string]json.RawMessage, prefix, title string) []FieldError {
	fields := fieldsByJSONName(target.Type())
	var errs []FieldError
	for _, key := range slices.Sorted(maps.Keys(values)) {
		f, ok := fields[key]
		if !ok {
			errs = append(errs, FieldError{Field: prefix + key, Message: fmt.Sprintf("is not a setting of %s sandboxes", title)})
			continue
		}
		value := values[key]
		if string(bytes.TrimSpace(value)) == "null" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			var inner map[string]json.RawMessage
			if err := json.Unmarshal(value, &inner); err != nil {
				errs = append(errs, FieldError{Field: prefix + key, Message: "must be an object"})
				continue
			}
			errs = append(errs, decodeObject(target.FieldByIndex(f.Index), inner, prefix+key+".", title)...)
			continue
		}
		ptr := reflect.New(f.Type)
		if err := json.Unmarshal(value, ptr.Interface()); err != nil {
			errs = append(errs, FieldError{Field: prefix + key, Message: "must be " + describeType(f.Type, err)})
			continue
		}
		target.FieldByIndex(f.Index).Set(ptr.Elem())
	}
	return errs
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
	add(tagged)
	add(k.Describe().Common.validate(cfg.common()))
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
	case reflect.Slice:
		return "a list of strings"
	default:
		return "of another type"
	}
}
