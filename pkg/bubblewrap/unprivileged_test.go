package bubblewrap

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestUnprivilegedServer covers servers that do not run as root. Run as
// root, it runs this whole test binary again as an unprivileged user.
func TestUnprivilegedServer(t *testing.T) {
	if os.Geteuid() != 0 {
		j := newJail(t)
		uid, _ := j.User()
		assert.Equal(t, os.Geteuid(), uid, "commands run as the server's own user")
		stdout, _, _ := run(t, j, "id -u")
		assert.Equal(t, itoa(os.Geteuid())+"\n", stdout)
		return
	}

	self, err := os.Executable()
	require.NoError(t, err)
	binary := filepath.Join(sharedTempDir(t), "bubblewrap.test")
	copyFile(t, self, binary)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	argv := []string{binary, "-test.count=1", "-test.timeout=4m"}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if dev, open := tunDeviceForAll(); !open {
		// A host without udev leaves the TUN device to root; udev opens it
		// to all (0666), as a server that is not root needs to give jails
		// network. The run sees such a device, in a mount namespace of its
		// own: the host's stays as it is.
		cmd = exec.CommandContext(ctx, "unshare", append([]string{"--mount", "--", "/bin/sh", "-c",
			`mount -t tmpfs tmpfs "$1" && mknod -m 0666 "$1/tun" c "$2" "$3" && mount --bind "$1/tun" "$4" &&
			user="$5" && shift 5 && exec setpriv --reuid="$user" --regid="$user" --clear-groups -- "$@"`,
			"sh", t.TempDir(), itoa(int(unix.Major(dev))), itoa(int(unix.Minor(dev))), tunDevice, itoa(nobody)}, argv...)...)
	}
	cmd.Dir = filepath.Dir(binary)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(), "HOME=/nonexistent"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the tests, run as uid %d:\n%s", nobody, out)
}

// tunDeviceForAll tells the host's TUN device, and whether all may open it.
func tunDeviceForAll() (dev uint64, open bool) {
	var st unix.Stat_t
	if err := unix.Stat(tunDevice, &st); err != nil {
		return 0, true // none: the run finds that jails cannot have network
	}
	return st.Rdev, st.Mode&0o006 == 0o006
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	require.NoError(t, err)
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(dst, src)
	require.NoError(t, err)
	require.NoError(t, dst.Close())
}
