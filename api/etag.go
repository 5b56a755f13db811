package api

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
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
	return entityTags(c.Request().Header.Values("If-Match"))
}

// entityTags reads an If-Match or If-None-Match header as its list of
// entity tags: nil without the header or with "*", which names any.
func entityTags(lines []string) []string {
	// A list may come as one line or as several header lines.
	h := strings.TrimSpace(strings.Join(lines, ","))
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

// answerNotModified answers a GET or HEAD that sends If-None-Match with 304
// Not Modified, and no body, when the answer would be 200 with an ETag the
// header names (RFC 9110 §13.1.2): the client's copy is current.
func answerNotModified(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		tags := req.Header.Values("If-None-Match")
		if strings.TrimSpace(strings.Join(tags, "")) == "" || (req.Method != http.MethodGet && req.Method != http.MethodHead) {
			return next(c)
		}
		res := c.Response()
		res.Before(func() {
			if res.Status == http.StatusOK && noneMatchNames(tags, res.Header().Get("ETag")) {
				res.Status = http.StatusNotModified
				res.Header().Del(echo.HeaderContentType)
				res.Header().Del(echo.HeaderContentLength)
				res.Writer = bodiless{res.Writer}
			}
		})
		return next(c)
	}
}

// noneMatchNames says whether If-None-Match's lines name etag, by the weak
// comparison the header uses: W/ is not looked at; "*" names any.
func noneMatchNames(lines []string, etag string) bool {
	if etag == "" {
		return false
	}
	tags := entityTags(lines)
	if tags == nil {
		return true // "*"
	}
	return slices.ContainsFunc(tags, func(tag string) bool {
		return strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/")
	})
}

// bodiless drops the body of a 304 answer.
type bodiless struct{ http.ResponseWriter }

func (b bodiless) Write(p []byte) (int, error) { return len(p), nil }

func (b bodiless) Unwrap() http.ResponseWriter { return b.ResponseWriter }
