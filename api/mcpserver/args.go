package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strconv"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/validation"
)

// decodeArgs reads a tool call's arguments into a new value of the tool's
// input struct, as its input schema (run.Tool.InputSchema) states them:
// every field by its json name, text as text (a file's content too),
// whole numbers, booleans, the default tag of an absent number. It returns
// a pointer to the input and every argument that is unknown, missing or of
// the wrong type.
func decodeArgs(raw json.RawMessage, t run.Tool) (any, error) {
	var fe auxilia.FieldErrors
	args := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(raw)) > 0 && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			fe.Add("arguments", "must be an object")
			return nil, fe.Err()
		}
	}
	in := reflect.New(reflect.TypeOf(t.Input))
	v := in.Elem()
	known := map[string]bool{}
	for _, f := range reflect.VisibleFields(v.Type()) {
		name := validation.JSONName(f)
		if !f.IsExported() || name == "" {
			continue
		}
		known[name] = true
		value, given := args[name]
		if !given || string(value) == "null" {
			if f.Tag.Get("binding") != "optional" {
				fe.Add(name, "is required")
			}
			if d := f.Tag.Get("default"); d != "" && f.Type.Kind() == reflect.Int {
				n, _ := strconv.Atoi(d)
				v.FieldByIndex(f.Index).SetInt(int64(n))
			}
			continue
		}
		field := v.FieldByIndex(f.Index)
		var err error
		switch field.Kind() {
		case reflect.String:
			var s string
			err = json.Unmarshal(value, &s)
			field.SetString(s)
		case reflect.Slice: // bytes: a file's content, given as text
			var s string
			err = json.Unmarshal(value, &s)
			field.SetBytes([]byte(s))
		case reflect.Int:
			var n int
			err = json.Unmarshal(value, &n)
			field.SetInt(int64(n))
		case reflect.Bool:
			var b bool
			err = json.Unmarshal(value, &b)
			field.SetBool(b)
		}
		if err != nil {
			fe.Add(name, "must be %s", article(field.Kind()))
		}
	}
	if r, ok := in.Interface().(*run.ReadInput); ok {
		run.CheckWindow(&fe, r.Offset, r.Limit)
	}
	var unknown []string
	for name := range args {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		fe.Add(name, "is not an argument of %s", t.Name)
	}
	if err := fe.Err(); err != nil {
		return nil, err
	}
	return in.Interface(), nil
}

func article(k reflect.Kind) string {
	switch k {
	case reflect.Int:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	default:
		return "a string"
	}
}
