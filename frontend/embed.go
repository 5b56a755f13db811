// Package frontend carries the built SPA (frontend/dist, written by
// `npm run build`) into the binary.
package frontend

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var dist embed.FS

// Dist is the built SPA; it holds only a placeholder until the SPA is built.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embed directive guarantees the folder
	}
	return sub
}
