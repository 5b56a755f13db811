package opensandboxtest

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
)

// A sandbox's filesystem is its root folder: sandbox path /a/b is
// root/a/b. Every access goes through os.Root, so links made inside a
// sandbox cannot reach the host.

// rel turns a sandbox path into a path inside the root (execd resolves
// relative paths against "/", its own working directory).
func rel(p string) string {
	clean := path.Clean("/" + p)
	if clean == "/" {
		return "."
	}
	return clean[1:]
}

// abs is the absolute sandbox path execd reports for p.
func abs(p string) string { return path.Clean("/" + p) }

func openRoot(sb *sandbox) (*os.Root, error) { return os.OpenRoot(sb.root) }

func statIn(sb *sandbox, p string) (fs.FileInfo, error) {
	root, err := openRoot(sb)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.Stat(rel(p))
}

// execdHome and execdPath are execd's own environment in a fake sandbox,
// beside what create's env adds.
const (
	execdHome = "/root"
	execdPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

var envVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// expand resolves a path as execd does before touching it: $VAR and
// ${VAR} from its environment (with overrides on top), a leading ~ as its
// home, and a refusal to go on when a variable is not set.
func (sb *sandbox) expand(p string, overrides map[string]string) (string, error) {
	if p == "" {
		return "", nil
	}
	env := map[string]string{"HOME": execdHome, "PATH": execdPath}
	for k, v := range sb.request.Env {
		if v != nil {
			env[k] = *v
		}
	}
	for k, v := range overrides {
		env[k] = v
	}
	missing := map[string]bool{}
	for _, m := range envVar.FindAllStringSubmatch(p, -1) {
		name := m[1] + m[2]
		if _, ok := env[name]; !ok {
			missing[name] = true
		}
	}
	if len(missing) > 0 {
		names := make([]string, 0, len(missing))
		for name := range missing {
			names = append(names, name)
		}
		sort.Strings(names)
		return "", fmt.Errorf("path references undefined environment variables: %s", strings.Join(names, ","))
	}
	expanded := os.Expand(p, func(k string) string { return env[k] })
	switch {
	case expanded == "~":
		return env["HOME"], nil
	case strings.HasPrefix(expanded, "~/"):
		return path.Join(env["HOME"], expanded[2:]), nil
	}
	return expanded, nil
}
