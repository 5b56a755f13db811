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
	cmd := exec.CommandContext(ctx, binary, "-test.count=1", "-test.timeout=4m")
	cmd.Dir = filepath.Dir(binary)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(), "HOME=/nonexistent"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the tests, run as uid %d:\n%s", nobody, out)
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
