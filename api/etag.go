package api

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
)

// A resource's ETag is its version, which every write increments.
func etagOf(version int) string { return `"` + strconv.Itoa(version) + `"` }

// setETag marks the answer with the resource's version.
func setETag(c echo.Context, version int) {
	c.Response().Header().Set("ETag", etagOf(version))
}

// ifMatch reads an optional If-Match header as the version the write
// expects: nil without the header or with "*" (the write goes through), the
// first quoted version otherwise, and -1, which never matches, for a value
// this API never hands out (the write fails with 412).
func ifMatch(c echo.Context) *int {
	h := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	if h == "" || h == "*" {
		return nil
	}
	for _, tag := range strings.Split(h, ",") {
		tag = strings.TrimSpace(tag)
		if v, err := strconv.Atoi(strings.Trim(tag, `"`)); err == nil && strings.HasPrefix(tag, `"`) {
			return &v
		}
	}
	never := -1
	return &never
}
