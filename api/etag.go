package api

import (
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/labstack/echo/v4"
)

// A resource's ETag is its version, which every write increments.
func etagOf(version int) string { return `"` + strconv.Itoa(version) + `"` }

// setETag marks the answer with the resource's version.
func setETag(c echo.Context, version int) {
	c.Response().Header().Set("ETag", etagOf(version))
}

// ifMatch reads an optional If-Match header as the version the write
// expects: nil without the header (the write goes through), and a version
// that can never match for "*"-less values this API did not hand out.
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

// checkVersion is for writes whose store cannot compare versions itself.
func checkVersion(expect *int, actual int) error {
	if expect != nil && *expect != actual {
		return auxilia.Errorf(auxilia.CodePrecondition,
			"The resource changed since it was read (If-Match %s, now %s): read it again.", etagOf(*expect), etagOf(actual))
	}
	return nil
}
