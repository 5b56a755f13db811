package run

import (
	"path"
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// maxPathLength bounds a path argument.
const maxPathLength = 4096

// resolve makes a tool's path argument absolute inside the instance:
// relative paths resolve against its working directory. Where the provider
// is this server's own host (local), a path may not leave the working
// directory at all; the provider refuses symlinks out of it as well.
func resolve(c *call, field, p string) (string, error) {
	var fe auxilia.FieldErrors
	switch {
	case len(p) > maxPathLength:
		fe.Add(field, "must be at most %d bytes", maxPathLength)
	case strings.ContainsRune(p, 0):
		fe.Add(field, "must not contain NUL bytes")
	}
	if err := fe.Err(); err != nil {
		return "", err
	}
	if p == "" {
		p = "."
	}
	if !path.IsAbs(p) {
		p = path.Join(c.instance.WorkDir, p)
	}
	p = path.Clean(p)
	if c.sandbox.Provider == "local" && p != c.instance.WorkDir && !strings.HasPrefix(p, c.instance.WorkDir+"/") {
		fe.Add(field, "must stay inside %s", c.instance.WorkDir)
		return "", fe.Err()
	}
	return p, nil
}
