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

// dangerousHostPaths may never be mounted, nor anything inside them, nor
// any folder that holds one (/var holds the Docker socket): they hold the
// host's identity and programs, its devices, users' keys or the container
// runtime. A "*" part stands for any one name. /var/run is a link to /run
// on every current distribution, so each folder of /run is listed under
// both names; /bin, /sbin and /lib are links into /usr on many.
var dangerousHostPaths = []string{
	"/etc", "/proc", "/sys", "/dev", "/root", "/boot",
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/home/*/.ssh", "/home/*/.gnupg", "/home/*/.aws", "/home/*/.azure", "/home/*/.config", "/home/*/.kube",
	"/home/*/.docker", "/home/*/.netrc", "/home/*/.git-credentials",
	"/run/docker.sock", "/run/docker", "/run/containerd", "/run/crio", "/run/podman", "/run/secrets",
	"/var/run/docker.sock", "/var/run/docker", "/var/run/containerd", "/var/run/crio", "/var/run/podman", "/var/run/secrets",
	"/var/lib/docker", "/var/lib/containerd", "/var/lib/containers", "/var/lib/kubelet",
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

// CheckVolumeMount applies the host-path rules to a mount: a normalised
// absolute path that is not a dangerous folder, inside one or holding one,
// and only inside the policy's allowed folders when it names some (which
// narrow the rules, never lift them).
func CheckVolumeMount(m VolumeMount, p Policy) error {
	if err := checkAbsolute("host path", m.HostPath); err != nil {
		return err
	}
	for _, d := range dangerousHostPaths {
		switch relation(m.HostPath, d) {
		case isInside:
			return fmt.Errorf("host path %s may not be mounted (it is inside %s)", m.HostPath, d)
		case holds:
			return fmt.Errorf("host path %s may not be mounted (it holds %s)", m.HostPath, d)
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

// pathRelation is how a path stands to a pattern of dangerousHostPaths.
type pathRelation int

const (
	apart    pathRelation = iota
	isInside              // the path is the pattern's folder or inside it
	holds                 // the pattern's folder is inside the path
)

// relation compares a normalised absolute path with a pattern, part by
// part, a "*" part of the pattern matching any one name.
func relation(p, pattern string) pathRelation {
	ps, qs := parts(p), parts(pattern)
	for i := 0; i < len(ps) && i < len(qs); i++ {
		if qs[i] != "*" && qs[i] != ps[i] {
			return apart
		}
	}
	if len(ps) >= len(qs) {
		return isInside
	}
	return holds
}

// parts splits an absolute path into its names ("/" has none).
func parts(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	dir = strings.TrimSuffix(dir, "/")
	return p == dir || strings.HasPrefix(p, dir+"/")
}
