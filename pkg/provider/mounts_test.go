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
