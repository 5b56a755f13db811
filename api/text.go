package api

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/validation"
	"github.com/labstack/echo/v4"
)

// Text that no name, key or path of ours may hold, and that no database
// column can keep alike (Postgres refuses a NUL outright): it is refused at
// the door, with the parameter or field named, on both engines.

const unstorable = "must not hold a NUL character or bytes that are not UTF-8"

// refuseUnstorablePath answers 404 to a request whose path holds such
// text: it can name nothing.
func refuseUnstorablePath() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if !validation.Text(c.Request().URL.Path) {
				return auxilia.Errorf(auxilia.CodeNotFound, "Nothing is found at a path that holds a NUL character or bytes that are not UTF-8.")
			}
			return next(c)
		}
	}
}

// refuseUnstorableQuery answers 422 on each query parameter whose value
// holds such text. It runs after authentication, so a caller without a
// token learns only that.
func refuseUnstorableQuery() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Request().URL.RawQuery == "" {
				return next(c)
			}
			query := c.Request().URL.Query()
			var fe auxilia.FieldErrors
			for _, name := range slices.Sorted(maps.Keys(query)) {
				if !validation.Text(name) {
					return auxilia.Errorf(auxilia.CodeMalformed, "A query parameter's name holds a NUL character or bytes that are not UTF-8.")
				}
				for _, v := range query[name] {
					if !validation.Text(v) {
						fe.Add(name, unstorable)
						break
					}
				}
			}
			if err := fe.Err(); err != nil {
				return err
			}
			return next(c)
		}
	}
}

// nulFields names the fields of a JSON body whose strings hold a NUL
// (written \u0000: JSON has no other way), keys included; none when the
// body has no such escape or is not JSON (its decoding then says so).
func nulFields(body []byte) []string {
	if !hasNULEscape(body) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var fields []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case string:
			if strings.ContainsRune(v, 0) {
				fields = append(fields, path)
			}
		case []any:
			for i, item := range v {
				walk(joinPath(path, strconv.Itoa(i)), item)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if strings.ContainsRune(k, 0) {
					fields = append(fields, path)
					continue
				}
				walk(joinPath(path, k), v[k])
			}
		}
	}
	walk("", v)
	return fields
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// hasNULEscape says whether a JSON text holds the escape \u0000. In JSON a
// backslash only ever starts an escape, so each one is read with the
// character it escapes.
func hasNULEscape(body []byte) bool {
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		if bytes.HasPrefix(body[i+1:], []byte("u0000")) {
			return true
		}
		i++
	}
	return false
}
