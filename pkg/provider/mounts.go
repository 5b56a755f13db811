package provider

import (
	"fmt"
	"path"
	"strings"
)

// VolumeMount is a host folder mounted into every instance.
type VolumeMount struct {
	HostPath    string
	SandboxPath string
	ReadOnly    bool
}

// dangerousHostPaths may never be mounted: they hold the host's identity,
// its devices or its container runtime.
var dangerousHostPaths = []string{
	"/etc", "/proc", "/sys", "/dev", "/root", "/boot",
	"/var/run/docker.sock", "/run/docker.sock", "/var/run/docker", "/run/containerd", "/var/run/containerd",
	"/var/lib/docker", "/var/lib/kubelet",
}

// ParseVolumeMount reads "host_path:sandbox_path[:ro]" (or ":rw").
func ParseVolumeMount(s string) (VolumeMount, error) {
	parts := strings.Split(s, ":")
	var m VolumeMount
	switch len(parts) {
	case 2:
	case 3:
		switch parts[2] {
		case "ro":
			m.ReadOnly = true
		case "rw":
		default:
			return m, fmt.Errorf("must end in :ro or :rw when it has a third part, not :%s", parts[2])
		}
	default:
		return m, fmt.Errorf("must be host_path:sandbox_path or host_path:sandbox_path:ro")
	}
	m.HostPath, m.SandboxPath = parts[0], parts[1]
	for _, p := range []struct{ name, value string }{{"host path", m.HostPath}, {"sandbox path", m.SandboxPath}} {
		if err := checkAbsolute(p.name, p.value); err != nil {
			return m, err
		}
	}
	return m, nil
}

func checkAbsolute(name, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("needs a %s", name)
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("%s %q must be absolute", name, p)
	case strings.ContainsAny(p, "\x00\n\r\t,;'\"`$\\ "):
		return fmt.Errorf("%s %q has characters a path here may not have", name, p)
	}
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return fmt.Errorf("%s %q must not have a \"..\" part", name, p)
		}
	}
	if path.Clean(p) != p {
		return fmt.Errorf("%s %q must be normalised (as %s)", name, p, path.Clean(p))
	}
	return nil
}

// CheckVolumeMount applies the host-path rules to a parsed mount: never the
// root or a dangerous folder (or anything inside one), and only inside the
// policy's allowed folders when it names some.
func CheckVolumeMount(m VolumeMount, p Policy) error {
	if m.HostPath == "/" {
		return fmt.Errorf("host path / may not be mounted")
	}
	for _, d := range dangerousHostPaths {
		if within(m.HostPath, d) {
			return fmt.Errorf("host path %s may not be mounted (it is inside %s)", m.HostPath, d)
		}
	}
	if m.SandboxPath == "/" {
		return fmt.Errorf("sandbox path / may not be a mount point")
	}
	if len(p.AllowedHostPaths) > 0 {
		for _, a := range p.AllowedHostPaths {
			if within(m.HostPath, a) {
				return nil
			}
		}
		return fmt.Errorf("host path %s is outside the folders this server allows (%s)", m.HostPath, strings.Join(p.AllowedHostPaths, ", "))
	}
	return nil
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	dir = strings.TrimSuffix(dir, "/")
	return p == dir || strings.HasPrefix(p, dir+"/")
}
