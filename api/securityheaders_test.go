package api_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// consoleScript is the inline script of the console's page below.
const consoleScript = "\n      window.early = { at: Date.now() };\n    "

// consolePage is the console's page as the build writes it: an inline
// script, then the entry script.
const consolePage = `<!doctype html>
<html lang="en">
  <head>
    <script>` + consoleScript + `</script>
    <script type="module" crossorigin src="/assets/index-1a2b.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>`

// policy reads a Content-Security-Policy header as its directives' sources.
func policy(header string) map[string][]string {
	directives := map[string][]string{}
	for _, d := range strings.Split(header, ";") {
		if words := strings.Fields(d); len(words) > 0 {
			directives[words[0]] = words[1:]
		}
	}
	return directives
}

// hashSource is the CSP source that lets exactly the inline script text run.
func hashSource(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Every answer refuses to be framed and to be read as another type than
// its own, whatever served it; the console's page has a strict policy of its
// own, every other answer may load and run nothing.
func TestEveryAnswerCarriesTheSecurityHeaders(t *testing.T) {
	e := newEnv(t, storetest.Open(t, store.SQLite), func(o *options) {
		o.spa = fstest.MapFS{
			"index.html":            {Data: []byte(consolePage)},
			"index.html.br":         {Data: []byte("BR-INDEX")},
			"assets/index-1a2b.js":  {Data: []byte("console.log(1)")},
			"assets/logo-3c4d.svg":  {Data: []byte("<svg/>")},
			"assets/index-1a2b.css": {Data: []byte("body{}")},
		}
	})
	e.echo.GET("/api/v1/test-panic", func(echo.Context) error { panic("boom") })
	for _, c := range []struct {
		method, path, token string
		headers             []string
		status              int
		page                bool // the console's page, under its own policy
	}{
		{method: "GET", path: "/", status: 200, page: true},
		{method: "GET", path: "/", headers: []string{"Accept-Encoding", "br"}, status: 200, page: true},
		{method: "GET", path: "/settings/sandboxes", status: 200, page: true},
		{method: "GET", path: "/index.html", status: 200, page: true},
		{method: "GET", path: "/assets/index-1a2b.js", status: 200},
		{method: "GET", path: "/assets/logo-3c4d.svg", status: 200},
		{method: "GET", path: "/assets/index-1a2b.css", status: 200},
		{method: "GET", path: "/api/v1/me", token: e.admin, status: 200},
		{method: "GET", path: "/api/v1/sandboxes", token: e.admin, status: 200},
		{method: "GET", path: "/api/v1/me", status: 401},
		{method: "GET", path: "/api/v1/tokens", token: e.member, status: 403},
		{method: "GET", path: "/api/v1/nowhere", token: e.admin, status: 404},
		{method: "DELETE", path: "/settings", status: 405},
		{method: "POST", path: "/api/v1/tokens", token: e.admin, headers: []string{"Content-Type", "application/json"}, status: 400},
		{method: "GET", path: "/api/v1/test-panic", token: e.admin, status: 500},
		{method: "GET", path: "/healthz", status: 200},
		{method: "GET", path: "/readyz", status: 200},
		{method: "GET", path: "/api/v1/openapi.yaml", status: 200},
		{method: "POST", path: "/mcp/agents/a1", status: 401},
		{method: "GET", path: "/.well-known/oauth-protected-resource/mcp/agents/a1", status: 200},
		{method: "GET", path: "/metrics", status: 404},
	} {
		name := c.method + " " + c.path + " " + strings.Join(c.headers, ": ")
		r := e.send(c.method, c.path, c.token, nil, c.headers...)
		require.Equal(t, c.status, r.StatusCode, "%s: %s", name, r.body)
		assert.Equal(t, "nosniff", r.Header.Get("X-Content-Type-Options"), name)
		assert.Equal(t, "DENY", r.Header.Get("X-Frame-Options"), name)
		assert.Equal(t, "same-origin", r.Header.Get("Referrer-Policy"), name)
		assert.Equal(t, "same-origin", r.Header.Get("Cross-Origin-Resource-Policy"), name)
		assert.Equal(t, "camera=(), microphone=(), geolocation=(), payment=(), usb=()", r.Header.Get("Permissions-Policy"), name)
		require.Len(t, r.Header.Values("Content-Security-Policy"), 1, "%s: two policies would both apply", name)
		csp := policy(r.Header.Get("Content-Security-Policy"))
		if !c.page {
			assert.Equal(t, map[string][]string{"default-src": {"'none'"}, "frame-ancestors": {"'none'"}}, csp, name)
			continue
		}
		assert.Equal(t, map[string][]string{
			"default-src":     {"'none'"},
			"script-src":      {"'self'", hashSource(consoleScript)},
			"style-src":       {"'self'", "'unsafe-inline'"},
			"style-src-attr":  {"'none'"},
			"img-src":         {"'self'", "data:"},
			"connect-src":     {"'self'"},
			"object-src":      {"'none'"},
			"base-uri":        {"'none'"},
			"form-action":     {"'self'"},
			"frame-ancestors": {"'none'"},
		}, csp, name)
	}
}

// The console's page lets run exactly the inline scripts it holds, each
// named by the hash of its text as a browser reads it (line ends made \n),
// read from the page served: change a script and its hash follows.
func TestTheConsolePolicyNamesEachInlineScriptByItsHash(t *testing.T) {
	for _, c := range []struct {
		name, page string
		scripts    []string // the inline scripts' texts, as a browser runs them
	}{
		{"the build's page", consolePage, []string{consoleScript}},
		{"another script", strings.Replace(consolePage, "Date.now()", "0", 1), []string{strings.Replace(consoleScript, "Date.now()", "0", 1)}},
		{"no inline script", `<!doctype html><script type="module" src="/assets/a.js"></script>`, nil},
		{"two, one with CRLF line ends", "<head><script>a()\r\nb()\r\n</script></head><body><SCRIPT type=module>c()</SCRIPT>",
			[]string{"a()\nb()\n", "c()"}},
		{"markup inside a script is its text", `<script>document.write("<b>")</script>`, []string{`document.write("<b>")`}},
		{"what runs no script is not named", `<!-- <script>a()</script> --><script src="/x.js">b()</script><script></script>` +
			`<textarea><script>c()</script></textarea>`, nil},
	} {
		srv := serveSPA(t, fstest.MapFS{"index.html": {Data: []byte(c.page)}})
		res, err := http.Get(srv.URL + "/")
		require.NoError(t, err)
		res.Body.Close()
		srv.Close()
		want := []string{"'self'"}
		for _, s := range c.scripts {
			want = append(want, hashSource(s))
		}
		assert.Equal(t, want, policy(res.Header.Get("Content-Security-Policy"))["script-src"], c.name)
	}
}

// Without a built SPA, the page that says so is framed no more than any other.
func TestThePageOfAnUnbuiltConsoleRefusesFraming(t *testing.T) {
	srv := serveSPA(t, fstest.MapFS{".gitkeep": {}})
	res, err := http.Get(srv.URL + "/")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"))
	assert.Equal(t, "default-src 'none'; frame-ancestors 'none'", res.Header.Get("Content-Security-Policy"))
}
