package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"unicode"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// decodeJSON reads a JSON body into v, refusing unknown fields; an empty body is allowed when optional.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case optional && errors.Is(err, io.EOF):
			return nil
		case errors.As(err, &tooLarge):
			return failure(http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, fmt.Sprintf("JSON bodies are limited to %d bytes", maxJSONBody))
		default:
			return failure(http.StatusBadRequest, auxilia.CodeMalformed, "the body is not the JSON this call takes: "+err.Error())
		}
	}
	if dec.More() {
		return failure(http.StatusBadRequest, auxilia.CodeMalformed, "the body holds more than one JSON value")
	}
	return nil
}

var labelKey = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,62}$`)

// checkLabels keeps labels small and printable: they are stored and shown, never interpreted.
func checkLabels(labels map[string]string) []FieldError {
	var errs []FieldError
	if len(labels) > 32 {
		return []FieldError{{Field: "labels", Message: "must have at most 32 entries"}}
	}
	for k, v := range labels {
		if !labelKey.MatchString(k) {
			errs = append(errs, FieldError{Field: "labels." + k, Message: "keys are 1-63 lowercase letters, digits, '_', '.' and '-'"})
			continue
		}
		if len(v) > 256 || !printable(v) {
			errs = append(errs, FieldError{Field: "labels." + k, Message: "values are at most 256 printable characters"})
		}
	}
	return errs
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
