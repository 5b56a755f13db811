package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
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

// ifMatchTags reads an optional If-Match header as its list of entity tags:
// nil without the header or with "*", when any current state will do.
func ifMatchTags(c echo.Context) []string {
	// A list may come as one line or as several header lines.
	h := strings.TrimSpace(strings.Join(c.Request().Header.Values("If-Match"), ","))
	if h == "" || h == "*" {
		return nil
	}
	tags := []string{}
	for _, tag := range strings.Split(h, ",") {
		tags = append(tags, strings.TrimSpace(tag))
	}
	return tags
}

// ifMatch reads If-Match as the versions a write to a versioned resource
// expects. A tag this API never hands out names no version, so a header of
// only such tags matches none and the write fails with 412.
func ifMatch(c echo.Context) auxilia.Expect {
	tags := ifMatchTags(c)
	if tags == nil {
		return nil
	}
	versions := auxilia.Expect{}
	for _, tag := range tags {
		if v, err := strconv.Atoi(strings.Trim(tag, `"`)); err == nil && etagOf(v) == tag {
			versions = append(versions, v)
		}
	}
	return versions
}

// Resources without a version of their own (runs, threads) carry an ETag
// made from their representation: it changes exactly when they do.

// jsonWithETag answers v as JSON, tagged with its content's ETag.
func jsonWithETag(c echo.Context, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.Response().Header().Set("ETag", contentETag(body))
	return c.JSONBlob(status, body)
}

func contentETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:12]) + `"`
}

// checkIfMatch compares an If-Match header with the content ETag of the
// resource as it is now (current): without the header, or with "*", the
// write goes through; naming none of its tags, it fails with 412.
func checkIfMatch(c echo.Context, resource string, current any) error {
	tags := ifMatchTags(c)
	if tags == nil {
		return nil
	}
	body, err := json.Marshal(current)
	if err != nil {
		return err
	}
	now := contentETag(body)
	if slices.Contains(tags, now) {
		return nil
	}
	return auxilia.Errorf(auxilia.CodePrecondition, "The %s changed since you read it: read it again, then retry.", resource)
}
