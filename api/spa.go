package api

import (
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// notBuilt is served at / when the binary was built without the SPA.
const notBuilt = `<!doctype html><meta charset="utf-8"><title>Auxilia sandboxes</title>
<p>The API is running, but this binary was built without the web app.
Build it with <code>make build</code> (or run <code>make run</code>), which needs Node.js and npm.`

// notPages are the folders of paths that are never the console's: the API,
// the MCP endpoints and well-known URIs (RFC 8615). An unknown path in them
// is 404, as a client of the API reads it, never the console's page.
var notPages = []string{"/api", "/mcp", "/.well-known"}

// isPage says whether an unknown path may be one of the console's routes.
func isPage(p string) bool {
	for _, folder := range notPages {
		if p == folder || strings.HasPrefix(p, folder+"/") {
			return false
		}
	}
	return true
}

// spaHandler serves the built SPA: its files, and index.html for every other
// path (client-side routes). Paths in notPages never fall back. A file the
// build compressed beside it (name.br, name.gz) is sent instead when the
// client accepts that encoding. index.html goes with the console's own
// Content-Security-Policy, made once from the file served.
func spaHandler(files fs.FS) echo.HandlerFunc {
	// A page that cannot be read names no inline script: its scripts are
	// then refused, never let through.
	page, _ := fs.ReadFile(files, "index.html")
	policy := consolePolicy(page)
	return func(c echo.Context) error {
		p := c.Request().URL.Path
		if !isPage(p) {
			return echo.ErrNotFound
		}
		if c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead {
			return echo.ErrMethodNotAllowed
		}
		name := strings.TrimPrefix(path.Clean(p), "/")
		if info, err := fs.Stat(files, name); err == nil && !info.IsDir() && name != "index.html" {
			cacheControl := ""
			if strings.HasPrefix(name, "assets/") { // content-hashed names: cache for good
				cacheControl = "public, max-age=31536000, immutable"
			}
			return serveAsset(c, files, name, cacheControl)
		}
		if _, err := fs.Stat(files, "index.html"); errors.Is(err, fs.ErrNotExist) {
			return c.HTML(http.StatusOK, notBuilt)
		}
		c.Response().Header().Set(headerCSP, policy)
		return serveAsset(c, files, "index.html", "no-cache")
	}
}

// encodings are the pre-compressed forms the build writes, most preferred first.
var encodings = []struct{ name, suffix string }{{"br", ".br"}, {"gzip", ".gz"}}

// serveAsset sends the file name, or its best pre-compressed form the client accepts.
func serveAsset(c echo.Context, files fs.FS, name, cacheControl string) error {
	h := c.Response().Header()
	if cacheControl != "" {
		h.Set("Cache-Control", cacheControl)
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		h.Set("Content-Type", ct)
	}
	sent := name
	accepted := acceptedEncodings(c.Request().Header.Get("Accept-Encoding"))
	varies := false
	for _, enc := range encodings {
		if !exists(files, name+enc.suffix) {
			continue
		}
		varies = true
		if sent == name && accepted(enc.name) {
			sent = name + enc.suffix
			h.Set("Content-Encoding", enc.name)
		}
	}
	if varies {
		h.Add("Vary", "Accept-Encoding")
	}
	f, err := files.Open(sent)
	if err != nil {
		return err
	}
	defer f.Close()
	content, ok := f.(io.ReadSeeker)
	if !ok {
		return errors.New("spa: " + sent + " cannot seek")
	}
	http.ServeContent(c.Response(), c.Request(), name, time.Time{}, content)
	return nil
}

func exists(files fs.FS, name string) bool {
	_, err := fs.Stat(files, name)
	return err == nil
}

// acceptedEncodings reads Accept-Encoding (RFC 9110 §12.5.3): an encoding is
// accepted when named, or matched by "*", with a q-value above zero.
func acceptedEncodings(header string) func(string) bool {
	q := map[string]float64{}
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		weight := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if w, err := strconv.ParseFloat(v, 64); err == nil {
				weight = w
			}
		}
		if coding != "" {
			q[strings.ToLower(coding)] = weight
		}
	}
	return func(enc string) bool {
		if w, named := q[enc]; named {
			return w > 0
		}
		w, wildcard := q["*"]
		return wildcard && w > 0
	}
}
