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
