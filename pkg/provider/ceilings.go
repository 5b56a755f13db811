package provider

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Ceiling is the operator's bound on one number a sandbox may set, on this
// server, below what the provider itself allows: a value above Max is
// refused on its field, naming the variable that sets it, and the
// catalogue's schema gives Max as the field's maximum, so that a form
// knows it before saving.
type Ceiling struct {
	// Field is the setting's path in the config, as errors name it:
	// "max_processes", "resources.memory_mb".
	Field string
	Max   float64
	// Unit, when set, is said after Max: "MiB".
	Unit string
	// Env is the operator's variable that sets Max.
	Env string
}

// CheckCeilings refuses each field of cfg above its ceiling.
func CheckCeilings(ceilings []Ceiling, cfg Config) []FieldError {
	var errs []FieldError
	for _, c := range ceilings {
		if value := numberAt(reflect.ValueOf(cfg).Elem(), c.Field); value > c.Max {
			errs = append(errs, FieldError{Field: c.Field, Message: fmt.Sprintf("must be at most %s on this server (%s)",
				strings.TrimSpace(Grouped(c.Max)+" "+c.Unit), c.Env)})
		}
	}
	return errs
}

// numberAt is the number at path (JSON keys joined by dots) in config, a
// config struct. A path that names no number is the provider's mistake.
func numberAt(config reflect.Value, path string) float64 {
	v := config
	for _, key := range strings.Split(path, ".") {
		var f reflect.StructField
		ok := v.Kind() == reflect.Struct
		if ok {
			f, ok = fieldsByJSONName(v.Type())[key]
		}
		if !ok {
			panic(fmt.Sprintf("provider: a ceiling on %q, which the config does not have", path))
		}
		v = v.FieldByIndex(f.Index)
	}
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanFloat():
		return v.Float()
	}
	panic(fmt.Sprintf("provider: a ceiling on %q, which is not a number", path))
}

// schemaCeilings gives each ceiling as its field's maximum in props, the
// properties of a config's schema.
func schemaCeilings(ceilings []Ceiling, props map[string]any) {
	for _, c := range ceilings {
		keys := strings.Split(c.Field, ".")
		at := props
		for _, key := range keys[:len(keys)-1] {
			at = at[key].(map[string]any)["properties"].(map[string]any)
		}
		at[keys[len(keys)-1]].(map[string]any)["maximum"] = c.Max
	}
}

// Grouped writes a number as people read it: thousands apart with commas
// (11,904), a fraction as short as it goes (0.25).
func Grouped(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	whole, fraction, _ := strings.Cut(s, ".")
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if fraction != "" {
		return sign + whole + "." + fraction
	}
	return sign + whole
}
