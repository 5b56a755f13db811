package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// readJSONBody reads the request body (within its limit) and checks that it
// is JSON text: a JSON media type (or none) and valid UTF-8.
func readJSONBody(c echo.Context) ([]byte, error) {
	if ct := c.Request().Header.Get(echo.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, auxilia.Errorf(auxilia.CodeUnsupportedMedia, "The body must be JSON (Content-Type: application/json).")
		}
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		return nil, bodyReadError(err)
	}
	if !utf8.Valid(body) {
		return nil, auxilia.Errorf(auxilia.CodeMalformed, "The body is not valid UTF-8.")
	}
	if fields := nulFields(body); len(fields) > 0 {
		var fe auxilia.FieldErrors
		for _, f := range fields {
			if f == "" { // the body itself, or one of its own members' names
				if bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
					return nil, auxilia.Errorf(auxilia.CodeMalformed, "The body has a field whose name holds a NUL character.")
				}
				return nil, auxilia.Errorf(auxilia.CodeMalformed, "The body must be a JSON object.")
			}
			fe.Add(f, unstorable)
		}
		return nil, fe.Err()
	}
	return body, nil
}

// bindJSON decodes the request body into v. Malformed JSON, an unknown
// field or trailing data is a 400; a value of the wrong type is a 422 on its field.
func bindJSON(c echo.Context, v any) error {
	body, err := readJSONBody(c)
	if err != nil {
		return err
	}
	return decodeJSON(body, v)
}

// decodeJSON is bindJSON for bytes already read.
func decodeJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return auxilia.Errorf(auxilia.CodeMalformed, "The request needs a JSON body.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			// The decoder names the first value of the wrong type only.
			if fe := typeErrors(body, v); len(fe) > 0 {
				return fe.Err()
			}
		}
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return auxilia.Errorf(auxilia.CodeMalformed, "The body has data after its JSON value.")
	}
	return nil
}

func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return auxilia.Errorf(auxilia.CodeMalformed, "The body must be a JSON object.")
		}
		var fe auxilia.FieldErrors
		fe.Add(typeErr.Field, "must be %s", jsonTypeName(typeErr.Type.Kind().String()))
		return fe.Err()
	case errors.As(err, &syntaxErr):
		return auxilia.Errorf(auxilia.CodeMalformed, "The body is not valid JSON: %s (at byte %d).", syntaxErr.Error(), syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return auxilia.Errorf(auxilia.CodeMalformed, "The body is not valid JSON: it ends too early.")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return auxilia.Errorf(auxilia.CodeMalformed, "The body has an unknown field %s.", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		return auxilia.Errorf(auxilia.CodeMalformed, "The body is not valid JSON: %s.", err.Error())
	}
}

// typeErrors names every member of a JSON object that does not fit its
// field of the struct v points at, and every entry of a map field that
// does not fit the map (tools.execute).
func typeErrors(body []byte, v any) auxilia.FieldErrors {
	var fe auxilia.FieldErrors
	target := reflect.TypeOf(v)
	if target.Kind() != reflect.Pointer || target.Elem().Kind() != reflect.Struct {
		return fe
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil {
		return fe
	}
	for _, f := range reflect.VisibleFields(target.Elem()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		raw, ok := members[name]
		if !ok || name == "" || name == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Map && f.Type.Key().Kind() == reflect.String {
			var entries map[string]json.RawMessage
			if json.Unmarshal(raw, &entries) == nil {
				for _, key := range slices.Sorted(maps.Keys(entries)) {
					addTypeError(&fe, name+"."+key, f.Type.Elem(), entries[key])
				}
				continue
			}
		}
		addTypeError(&fe, name, f.Type, raw)
	}
	return fe
}

// addTypeError adds field's error when raw does not decode as t.
func addTypeError(fe *auxilia.FieldErrors, field string, t reflect.Type, raw json.RawMessage) {
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); errors.As(err, &typeErr) {
		if typeErr.Field != "" {
			field += "." + typeErr.Field
		}
		fe.Add(field, "must be %s", jsonTypeName(typeErr.Type.Kind().String()))
	}
}

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "a list"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	default:
		return "of another type"
	}
}

// pathID reads a UUID path parameter. Anything that is not a UUID cannot
// name a resource, so it is a 404 like any unknown id.
func pathID(c echo.Context, name, resource string) (string, error) {
	id, ok := auxilia.ParseID(c.Param(name))
	if !ok {
		return "", auxilia.NotFound(resource)
	}
	return id, nil
}

// queryID reads the optional uuid query parameter name into into, naming it
// in fe when it is not one.
func queryID(c echo.Context, fe *auxilia.FieldErrors, name string, into *string) {
	if s := c.QueryParam(name); s != "" {
		id, ok := auxilia.ParseID(s)
		if !ok {
			fe.Add(name, "must be a uuid")
		}
		*into = id
	}
}

// filteredPage reads a list's page request, naming its bad fields in fe with
// the filters' own, so that one answer names every bad field.
func filteredPage(c echo.Context, fe *auxilia.FieldErrors) (auxilia.PageRequest, error) {
	req, err := pageRequest(c)
	var invalid *auxilia.Error
	if errors.As(err, &invalid) && invalid.Code == auxilia.CodeInvalid {
		*fe = append(*fe, invalid.Fields...)
	} else if err != nil {
		return req, err
	}
	return req, fe.Err()
}

// actor returns who makes the request (set by the auth middleware).
func actor(c echo.Context) auxilia.Actor {
	a, _ := auxilia.ActorFrom(c.Request().Context())
	return a
}

// bodyReadError maps a failed body read to the answer the client should get.
func bodyReadError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return tooLargeError(tooLarge.Limit)
	}
	return auxilia.Errorf(auxilia.CodeMalformed, "The body could not be read: %s.", err.Error())
}

func tooLargeError(limit int64) error {
	return auxilia.Errorf(auxilia.CodeTooLarge, "The body is larger than the limit of %s.", formatBytes(limit))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}

// boolQuery reads an optional true/false query parameter.
func boolQuery(c echo.Context, name string) (bool, error) {
	switch c.QueryParam(name) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	var fe auxilia.FieldErrors
	fe.Add(name, "must be true or false")
	return false, fe.Err()
}

// dryRunOr is preview where the request asks for a dry run (dry_run=true),
// else real: the one way a write handler picks what it calls.
func dryRunOr[F any](c echo.Context, real, preview F) (F, error) {
	dryRun, err := boolQuery(c, "dry_run")
	if err != nil || !dryRun {
		return real, err
	}
	return preview, nil
}
