package run

import (
	"strings"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// maxPathLength bounds a path argument.
const maxPathLength = 4096

// resolve makes a tool's path argument absolute inside the instance:
// relative paths resolve against its working directory. Where the provider
// says its files are only those in the working directory (one on this
// server's own host), a path may not leave it at all; the provider refuses
// symlinks out of it as well.
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
	p, _, inside := jailfs.Inside(c.instance.WorkDir, p)
	if c.filesInWorkDir && !inside {
		fe.Add(field, "must stay inside %s", c.instance.WorkDir)
		return "", fe.Err()
	}
	return p, nil
}
