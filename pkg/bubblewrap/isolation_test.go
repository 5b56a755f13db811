package bubblewrap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/bubblewrap/nettest"
)

func TestOnlyRootIsWritable(t *testing.T) {
	j := newJail(t)
	stdout, _, res := run(t, j, "echo kept > /workspace/kept.txt && cat kept.txt")
	assert.Equal(t, "kept\n", stdout)
	assert.Equal(t, 0, res.ExitCode)
	data, err := os.ReadFile(filepath.Join(j.Root, "kept.txt"))
	require.NoError(t, err)
	assert.Equal(t, "kept\n", string(data), "Root is the host folder")

	for _, p := range []string{"/usr/bin/evil", "/etc/evil", "/evil", "/bin/evil", "/dev/evil", "/proc/sys/kernel/hostname"} {
		_, stderr, res := run(t, j, "echo x > "+p)
		assert.NotEqual(t, 0, res.ExitCode, "%s cannot be written", p)
		assert.NotEmpty(t, stderr)
	}
	_, _, res = run(t, j, "echo x > /dev/null && echo x > /tmp/scratch && echo x > /dev/shm/scratch")
	assert.Equal(t, 0, res.ExitCode, "/dev/null, /tmp and /dev/shm are usable")
}

func TestTmpIsPrivate(t *testing.T) {
	j := newJail(t)
	hostFile, err := os.CreateTemp("", "host-only-")
	require.NoError(t, err)
	hostFile.Close()
	t.Cleanup(func() { os.Remove(hostFile.Name()) })

	stdout, _, _ := run(t, j, "ls -A /tmp; echo mine > /tmp/"+marker)
	assert.Empty(t, stdout, "the host's /tmp is not visible")
	_, err = os.Stat(filepath.Join(os.TempDir(), marker))
	assert.ErrorIs(t, err, os.ErrNotExist, "the jail's /tmp is not the host's")
	stdout, _, _ = run(t, j, "ls -A /tmp")
	assert.Empty(t, stdout, "each command has a fresh /tmp")
}

func TestHostIsHidden(t *testing.T) {
	parent := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(parent, "secret.txt"), []byte("secret"), 0o644))
	j := newJail(t)
	j.Root = filepath.Join(parent, "instance")
	require.NoError(t, os.Mkdir(j.Root, 0o700))
	uid, gid := j.User()
	require.NoError(t, os.Chown(j.Root, uid, gid))

	stdout, _, _ := run(t, j, "ls -A /; ls -A /workspace/..; cat /etc/passwd; hostname")
	assert.NotContains(t, stdout, "root\n", "no /root")
	assert.NotContains(t, stdout, "home\n", "no /home")
	assert.NotContains(t, stdout, "var\n", "no /var")
	assert.NotContains(t, stdout, "secret", "nothing beside Root")
	assert.NotContains(t, stdout, parent, "not even Root's host path")
	assert.Contains(t, stdout, "sandbox:x:", "made-up accounts")
	assert.True(t, strings.HasSuffix(stdout, "sandbox\n"), "its own hostname")

	_, _, res := run(t, j, "cat /root/.bashrc || ls /root")
	assert.NotEqual(t, 0, res.ExitCode, "/root cannot be read")

	stdout, _, _ = run(t, j, "ls /proc | grep -c '^[0-9]'; cat /proc/1/cmdline")
	lines := strings.SplitN(stdout, "\n", 2)
	assert.Contains(t, []string{"3", "4", "5"}, lines[0], "only the jail's processes are visible")
	assert.NotContains(t, lines[1], parent, "bwrap's command line does not tell where Root is")
}

func TestBinds(t *testing.T) {
	shared := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(shared, "in.txt"), []byte("shared"), 0o644))
	require.NoError(t, os.Chmod(shared, 0o777))
	j := newJail(t)
	j.Binds = []Bind{{Host: shared, Sandbox: "/ro", ReadOnly: true}, {Host: shared, Sandbox: "/rw"}}
	stdout, _, _ := run(t, j, "cat /ro/in.txt; echo x > /ro/out.txt || echo refused; echo y > /rw/out.txt && echo written")
	assert.Equal(t, "sharedrefused\nwritten\n", stdout)
	data, err := os.ReadFile(filepath.Join(shared, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "y\n", string(data))
}

func TestNoNetworkUnlessAsked(t *testing.T) {
	host := nettest.Listen(t, "127.0.0.1")
	j := newJail(t)
	_, stderr, res := run(t, j, nettest.SendHi("127.0.0.1:"+host.Port))
	assert.NotEqual(t, 0, res.ExitCode, "no network: the host's loopback is out of reach")
	assert.Contains(t, stderr, "Connection refused")
	stdout, _, _ := run(t, j, "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")
	assert.Equal(t, "lo\n", stdout, "only a loopback of its own")
	stdout, _, _ = run(t, j, "cat /etc/resolv.conf /etc/hosts")
	assert.Equal(t, jailHosts, stdout, "no resolver, and only itself in /etc/hosts")
	host.AssertHeardNothing(t)
}

func TestNoPrivileges(t *testing.T) {
	j := newJail(t)
	stdout, _, _ := run(t, j, "grep NoNewPrivs /proc/self/status; mount -t tmpfs none /tmp 2>/dev/null || echo no mount; chroot / true 2>/dev/null || echo no chroot")
	assert.Equal(t, "NoNewPrivs:\t1\nno mount\nno chroot\n", stdout, "setuid programs gain nothing, and nothing privileged works")
}

func TestCommandsHaveOnlyTheStandardDescriptors(t *testing.T) {
	j := newJail(t)
	for _, network := range []bool{false, true} {
		if network && checkTun(os.Geteuid() == 0) != nil {
			continue // no network for jails here
		}
		j.Network = network
		stdout, _, _ := run(t, j, "ls /proc/$$/fd")
		assert.Equal(t, "0\n1\n2\n", stdout, "the command's shell holds stdin, stdout and stderr only (network %v)", network)
	}
}
