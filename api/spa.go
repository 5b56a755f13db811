package api

import (
	"errors"
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/labstack/echo/v4"
)

// notBuilt is served at / when the binary was built without the SPA.
const notBuilt = `<!doctype html><meta charset="utf-8"><title>Auxilia sandboxes</title>
<p>The API is running, but this binary was built without the web app.
Build it with <code>make build</code> (or run <code>make run</code>), which needs Node.js and npm.`

// spaHandler serves the built SPA: its files as they are, and index.html for
// every other path (client-side routes). Paths under /api/ never fall back.
func spaHandler(files fs.FS) echo.HandlerFunc {
	fileServer := http.FileServer(http.FS(files))
	return func(c echo.Context) error {
		p := c.Request().URL.Path
		if strings.HasPrefix(p, "/api/") || p == "/api" {
			return echo.ErrNotFound
		}
		if c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead {
			return echo.ErrMethodNotAllowed
		}
		name := strings.TrimPrefix(path.Clean(p), "/")
		if info, err := fs.Stat(files, name); err == nil && !info.IsDir() && name != "index.html" {
			if strings.HasPrefix(name, "assets/") { // content-hashed names: cache for good
				c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
			}
			fileServer.ServeHTTP(c.Response(), c.Request())
			return nil
		}
		index, err := fs.ReadFile(files, "index.html")
		if errors.Is(err, fs.ErrNotExist) {
			return c.HTML(http.StatusOK, notBuilt)
		}
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.HTMLBlob(http.StatusOK, index)
	}
}
