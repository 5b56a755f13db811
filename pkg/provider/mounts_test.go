package provider

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVolumeMounts(t *testing.T) {
	m, err := ParseVolumeMount("/srv/data:/data:ro")
	assert.NoError(t, err)
	assert.Equal(t, VolumeMount{HostPath: "/srv/data", SandboxPath: "/data", ReadOnly: true}, m)
	m, err = ParseVolumeMount("/srv/data:/data")
	assert.NoError(t, err)
	assert.False(t, m.ReadOnly)

	for _, bad := range []string{"", "/a", "/a:/b:/c:/d", "a:/b", "/a:b", "/a:/b:rx", "/a/../b:/c", "/a/:/b", "/a:/b/./c",
		"/a b:/c", "/a;b:/c", "/a:/b$(x)"} {
		_, err := ParseVolumeMount(bad)
		assert.Error(t, err, "%q", bad)
	}
	for _, bad := range []string{"/:/x", "/etc:/x", "/etc/ssl:/x", "/proc/1:/x", "/sys:/x", "/dev:/x", "/root:/x", "/boot:/x",
		"/var/run/docker.sock:/s", "/run/docker.sock:/s", "/srv:/"} {
		m, err := ParseVolumeMount(bad)
		if err == nil {
			err = CheckVolumeMount(m, Policy{})
		}
		assert.Error(t, err, "%q", bad)
	}
	allowed := Policy{AllowedHostPaths: []string{"/srv/data", "/mnt/shared"}}
	for in, want := range map[string]bool{"/srv/data:/d": true, "/srv/data/x:/d": true, "/mnt/shared:/s": true,
		"/srv/database:/d": false, "/srv:/d": false, "/home/x:/d": false} {
		m, err := ParseVolumeMount(in)
		assert.NoError(t, err)
		assert.Equal(t, want, CheckVolumeMount(m, allowed) == nil, in)
	}
}

// A folder that holds a dangerous one gives it away as surely as the
// dangerous folder itself: /var/run holds the Docker socket.
func TestVolumeMountRefusesWhatHoldsADangerousPath(t *testing.T) {
	for _, host := range []string{"/", "/var", "/var/run", "/run", "/var/lib", "/usr", "/usr/local", "/usr/bin",
		"/lib", "/lib64", "/bin", "/home", "/home/alice", "/home/alice/.ssh", "/home/alice/.ssh/id_ed25519",
		"/home/bob/.aws", "/home/bob/.config/gcloud", "/home/bob/.kube", "/home/bob/.docker/config.json",
		"/var/run/secrets", "/var/run/secrets/kubernetes.io", "/run/secrets", "/var/lib/containerd", "/var/lib/containers",
		"/run/crio/crio.sock", "/run/podman"} {
		m, err := ParseVolumeMount(host + ":/x:rw")
		if assert.NoError(t, err, host) {
			assert.Error(t, CheckVolumeMount(m, Policy{}), "%s may not be mounted", host)
		}
	}
	for _, host := range []string{"/srv", "/srv/data", "/mnt/shared", "/opt/datasets", "/home/alice/projects",
		"/home/alice/projects/.sshkeys-not", "/var/lib/postgresql-dumps/x", "/var/cache/models", "/data"} {
		m, err := ParseVolumeMount(host + ":/x")
		if assert.NoError(t, err, host) {
			assert.NoError(t, CheckVolumeMount(m, Policy{}), "%s may be mounted", host)
		}
	}
}

// Another spelling of a dangerous path is refused as the path itself,
// whether it comes through ParseVolumeMount or straight to the check.
func TestVolumeMountSpellings(t *testing.T) {
	for _, host := range []string{"/var/run/", "//var/run", "/var//run", "/var/./run", "/var/lib/../run", "/./etc", "/etc/",
		"//", "/.", "/srv/..", "/home/alice/./.ssh"} {
		_, err := ParseVolumeMount(host + ":/x")
		assert.Error(t, err, "%s does not parse", host)
		assert.Error(t, CheckVolumeMount(VolumeMount{HostPath: host, SandboxPath: "/x"}, Policy{}), "%s is refused", host)
	}
}

// The allowed folders narrow the rules; they never lift them.
func TestVolumeMountAllowedFoldersKeepTheRules(t *testing.T) {
	wide := Policy{AllowedHostPaths: []string{"/", "/var", "/home"}}
	for in, want := range map[string]bool{"/var/run:/r": false, "/var/lib:/l": false, "/var/data:/d": true,
		"/:/r": false, "/home:/h": false, "/home/alice:/h": false, "/home/alice/work:/h": true, "/srv:/s": true} {
		m, err := ParseVolumeMount(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, CheckVolumeMount(m, wide) == nil, in)
		}
	}
}
