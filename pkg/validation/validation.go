// Package validation checks structs by their `validate` tags and reports
// every broken field at once, named by its dotted JSON path.
package validation

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/go-playground/validator/v10"
)

var (
	once     sync.Once
	instance *validator.Validate
)

// Validator returns the shared validator, set up to name fields by their JSON names.
func Validator() *validator.Validate {
	once.Do(func() {
		instance = validator.New(validator.WithRequiredStructEnabled())
		instance.RegisterTagNameFunc(JSONName)
		registerFormats(instance)
	})
	return instance
}

// JSONName is the name a struct field has in JSON ("" when it has none).
func JSONName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return f.Name
	}
	return name
}

// Struct validates v and returns each broken field with a readable message.
func Struct(v any) auxilia.FieldErrors {
	err := Validator().Struct(v)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return auxilia.FieldErrors{{Field: "", Message: err.Error()}}
	}
	out := make(auxilia.FieldErrors, 0, len(verrs))
	for _, fe := range verrs {
		out = append(out, auxilia.FieldError{Field: fieldPath(fe.Namespace()), Message: Message(fe)})
	}
	return out
}

// fieldPath turns validator's "Config.volume_mounts[2]" into "volume_mounts.2".
func fieldPath(ns string) string {
	_, rest, found := strings.Cut(ns, ".") // drop the struct's own name
	if !found {
		return ns
	}
	rest = strings.ReplaceAll(rest, "[", ".")
	return strings.ReplaceAll(rest, "]", "")
}

// Message explains one failed tag in words.
func Message(fe validator.FieldError) string {
	kind := fe.Kind()
	if kind == reflect.Pointer {
		kind = fe.Type().Elem().Kind()
	}
	isText := kind == reflect.String
	isList := kind == reflect.Slice || kind == reflect.Map
	switch fe.Tag() {
	case "required":
		return "is required"
	case "min", "gte":
		if isText {
			return fmt.Sprintf("must be at least %s characters", fe.Param())
		}
		if isList {
			return fmt.Sprintf("must have at least %s items", fe.Param())
		}
		return "must be at least " + fe.Param()
	case "max", "lte":
		if isText {
			return fmt.Sprintf("must be at most %s characters", fe.Param())
		}
		if isList {
			return fmt.Sprintf("must have at most %s items", fe.Param())
		}
		return "must be at most " + fe.Param()
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "hexcolor", "iscolor":
		return "must be a colour like #1f6feb"
	case "uuid", "uuid4", "uuid7":
		return "must be a UUID"
	case "printascii":
		return "must be printable ASCII"
	case "excludesall":
		return "must not contain any of " + fe.Param()
	case "unique":
		return "must not repeat an item"
	default:
		if f, ok := formats[fe.Tag()]; ok {
			return f.message
		}
		return fmt.Sprintf("is not valid (%s)", fe.Tag())
	}
}
