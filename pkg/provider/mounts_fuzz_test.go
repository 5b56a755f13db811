package provider

import (
	"strings"
	"testing"
)

func FuzzVolumeMount(f *testing.F) {
	for _, s := range []string{"/srv/data:/data:ro", "/srv/data:/data", "/:/x", "/etc:/x", "/srv/../etc:/x", "a:b", "/a:/b:rw",
		"/var/run/docker.sock:/s", "/a:/b:ro:x", "/a\x00:/b", "/var/run:/r", "/usr:/u:rw", "/var/lib:/l", "/home:/h",
		"/home/a/.ssh:/k", "/var/run/:/r", "//var/run:/r", "/var/./run:/r", "/var/lib/../run:/r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseVolumeMount(s)
		if err != nil {
			return
		}
		// A mount that parses is absolute, normalised and free of "..".
		for _, p := range []string{m.HostPath, m.SandboxPath} {
			if !strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
				t.Fatalf("%q parsed into path %q", s, p)
			}
			for _, part := range strings.Split(p, "/") {
				if part == ".." || part == "." {
					t.Fatalf("%q parsed into path %q", s, p)
				}
			}
		}
		again := m.HostPath + ":" + m.SandboxPath
		if m.ReadOnly {
			again += ":ro"
		}
		back, err := ParseVolumeMount(again)
		if err != nil || back != m {
			t.Fatalf("%q does not round-trip: %v %v", s, back, err)
		}
		if CheckVolumeMount(m, Policy{}) == nil {
			for _, d := range dangerousHostPaths {
				d = concrete(d, m.HostPath)
				if m.HostPath == "/" || m.HostPath == d || strings.HasPrefix(m.HostPath, d+"/") || strings.HasPrefix(d, m.HostPath+"/") {
					t.Fatalf("%q mounts the dangerous %s, or a folder holding it", s, d)
				}
			}
		}
	})
}

// concrete fills each "*" of a dangerous pattern with the name p has there
// (or any name where p is shorter).
func concrete(pattern, p string) string {
	names := strings.Split(p, "/")
	out := strings.Split(pattern, "/")
	for i, part := range out {
		if part == "*" {
			out[i] = "any"
			if i < len(names) {
				out[i] = names[i]
			}
		}
	}
	return strings.Join(out, "/")
}
