package api_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every GET that answers an ETag answers 304, without a body, to an
// If-None-Match that names it, and the resource to one that does not.
func TestGetsWithACurrentETagAreNotModified(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		f := e.fixture()
		for _, path := range []string{"/api/v1/agents/" + f.agent, "/api/v1/agents/" + f.agent + "/sandbox",
			"/api/v1/sandboxes/" + f.sandbox, "/api/v1/runs/" + f.run, "/api/v1/agents/" + f.agent + "/threads/t"} {
			read := e.call("GET", path, e.member, nil)
			require.Equal(t, 200, read.StatusCode, path)
			etag := read.Header.Get("ETag")
			require.NotEmpty(t, etag, path)

			for _, header := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
				r := e.call("GET", path, e.member, nil, "If-None-Match", header)
				assert.Equal(t, 304, r.StatusCode, "%s with If-None-Match: %s", path, header)
				assert.Empty(t, r.body, path)
				assert.Equal(t, etag, r.Header.Get("ETag"), path)
			}
			r := e.call("GET", path, e.member, nil, "If-None-Match", `"other"`)
			assert.Equal(t, 200, r.StatusCode, path)
			assert.Equal(t, read.body, r.body, path)
			e.call("GET", path, "", nil, "If-None-Match", etag).problem(t, 401, "unauthorized")
		}
		// A write moves the tag: the copy read before is stale.
		before := e.call("GET", "/api/v1/agents/"+f.agent, e.member, nil).Header.Get("ETag")
		require.Equal(t, 200, e.call("PATCH", "/api/v1/agents/"+f.agent, e.member, map[string]any{"description": "changed"},
			"Content-Type", "application/merge-patch+json").StatusCode)
		assert.Equal(t, 200, e.call("GET", "/api/v1/agents/"+f.agent, e.member, nil, "If-None-Match", before).StatusCode)
		// If-None-Match on a write is not a conditional GET.
		assert.NotEqual(t, 304, e.call("PUT", "/api/v1/agents/"+f.agent+"/sandbox", e.member,
			map[string]any{"sandbox_id": f.sandbox}, "If-None-Match", "*").StatusCode)
	})
}
