package api_test

import (
	"io"
	"net/http"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The build writes name.br and name.gz beside each compressible file; the
// server picks one by Accept-Encoding and says the answer varies by it.
func TestSPAServesPrecompressedFilesByAcceptEncoding(t *testing.T) {
	files := fstest.MapFS{
		"index.html":            {Data: []byte("<html>app</html>")},
		"index.html.br":         {Data: []byte("BR-INDEX")},
		"index.html.gz":         {Data: []byte("GZ-INDEX")},
		"assets/app-1a2b.js":    {Data: []byte("console.log(1)")},
		"assets/app-1a2b.js.br": {Data: []byte("BR-JS")},
		"assets/app-1a2b.js.gz": {Data: []byte("GZ-JS")},
		"assets/only-9f8e.css":  {Data: []byte("body{}")},
		"assets/gz-7c6d.svg":    {Data: []byte("<svg/>")},
		"assets/gz-7c6d.svg.gz": {Data: []byte("GZ-SVG")},
	}
	srv := serveSPA(t, files)
	// A transport that leaves Accept-Encoding and the body as they are.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path, acceptEncoding string) (*http.Response, string) {
		req, err := http.NewRequest("GET", srv.URL+path, nil)
		require.NoError(t, err)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}

	for _, c := range []struct{ path, accept, body, encoding string }{
		{"/assets/app-1a2b.js", "gzip, deflate, br, zstd", "BR-JS", "br"},
		{"/assets/app-1a2b.js", "gzip", "GZ-JS", "gzip"},
		{"/assets/app-1a2b.js", "br;q=0, gzip;q=0.5", "GZ-JS", "gzip"},
		{"/assets/app-1a2b.js", "*", "BR-JS", "br"},
		{"/assets/app-1a2b.js", "*;q=0", "console.log(1)", ""},
		{"/assets/app-1a2b.js", "identity", "console.log(1)", ""},
		{"/assets/app-1a2b.js", "", "console.log(1)", ""},
		{"/assets/gz-7c6d.svg", "br, gzip", "GZ-SVG", "gzip"},
		{"/assets/gz-7c6d.svg", "br", "<svg/>", ""},
	} {
		res, body := get(c.path, c.accept)
		assert.Equal(t, 200, res.StatusCode, "%s with %q", c.path, c.accept)
		assert.Equal(t, c.body, body, "%s with %q", c.path, c.accept)
		assert.Equal(t, c.encoding, res.Header.Get("Content-Encoding"), "%s with %q", c.path, c.accept)
		assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"), "%s with %q", c.path, c.accept)
		assert.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"))
		assert.Contains(t, res.Header.Get("Content-Type"), map[string]string{"/assets/app-1a2b.js": "javascript", "/assets/gz-7c6d.svg": "image/svg+xml"}[c.path],
			"the type is the original file's, not the compressed one's")
		assert.Equal(t, len(c.body), int(res.ContentLength))
	}

	res, body := get("/assets/only-9f8e.css", "br, gzip")
	assert.Equal(t, "body{}", body, "a file without compressed forms is sent as it is")
	assert.Empty(t, res.Header.Get("Content-Encoding"))
	assert.Empty(t, res.Header.Get("Vary"))
	assert.Contains(t, res.Header.Get("Content-Type"), "text/css")

	for _, path := range []string{"/", "/settings/sandboxes", "/index.html"} {
		res, body = get(path, "gzip, br")
		assert.Equal(t, "BR-INDEX", body, path)
		assert.Equal(t, "br", res.Header.Get("Content-Encoding"), path)
		assert.Equal(t, "no-cache", res.Header.Get("Cache-Control"), "index.html is checked every time: %s", path)
		assert.Equal(t, "Accept-Encoding", res.Header.Get("Vary"), path)
		assert.Contains(t, res.Header.Get("Content-Type"), "text/html", path)
	}
	res, body = get("/settings/sandboxes", "")
	assert.Equal(t, "<html>app</html>", body)
	assert.Empty(t, res.Header.Get("Content-Encoding"))
}
