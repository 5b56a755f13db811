package api_test

import (
	"io"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSPAIsServedWithClientRoutes(t *testing.T) {
	files := fstest.MapFS{
		"index.html":         {Data: []byte("<html>app</html>")},
		"assets/app-1a2b.js": {Data: []byte("console.log(1)")},
	}
	srv := serveSPA(t, files)
	get := func(path string) (*http.Response, string) {
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := get("/")
	assert.Equal(t, 200, res.StatusCode)
	assert.Equal(t, "<html>app</html>", body)
	res, body = get("/settings/sandboxes")
	assert.Equal(t, "<html>app</html>", body, "client routes fall back to index.html")
	assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"))
	res, body = get("/assets/app-1a2b.js")
	assert.Equal(t, "console.log(1)", body)
	assert.Contains(t, res.Header.Get("Cache-Control"), "immutable")
	res, _ = get("/api/v1/nope")
	assert.Equal(t, 404, res.StatusCode, "the API never falls back to the SPA")
	assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
	res, _ = get("/api/v1/me")
	assert.Equal(t, 401, res.StatusCode)
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration",
		"/.well-known/oauth-authorization-server/mcp/agents/x", "/.well-known", "/mcp", "/mcp/agents", "/api"} {
		res, body := get(path)
		assert.Equal(t, 404, res.StatusCode, "%s is not the console's", path)
		assert.Equal(t, "application/problem+json", res.Header.Get("Content-Type"), path)
		assert.Contains(t, body, `"reason":"not_found"`, path)
	}
	res, body = get("/mcp-guide")
	assert.Equal(t, "<html>app</html>", body, "a client route that only begins like one is the console's")
	res, _ = get("/.well-known/oauth-protected-resource/mcp/agents/x")
	assert.Equal(t, 200, res.StatusCode, "the MCP endpoints' metadata is served")
}

func TestWithoutABuiltSPA(t *testing.T) {
	srv := serveSPA(t, fstest.MapFS{".gitkeep": {}})
	res, err := http.Get(srv.URL + "/")
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	assert.Equal(t, 200, res.StatusCode)
	assert.Contains(t, string(b), "built without the web app")
}
