package bubblewrap

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAvailable(t *testing.T) {
	require.NoError(t, Available(context.Background(), "", false), "bubblewrap works on this machine")
	if err := checkTun(os.Geteuid() == 0); err != nil {
		assert.EqualError(t, Available(context.Background(), "", true), err.Error(), "the probe says why jails cannot have network")
		return
	}
	require.NoError(t, Available(context.Background(), "", true), "and can give jails network")
}

func TestAvailableWithoutBwrap(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "bwrap")
	err := Available(context.Background(), missing, false)
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.Contains(t, err.Error(), missing)

	t.Setenv("PATH", t.TempDir())
	err = Available(context.Background(), "", false)
	require.ErrorIs(t, err, ErrNotInstalled)
	assert.Equal(t, `bubblewrap is not installed: there is no "bwrap" in PATH (install the bubblewrap package)`, err.Error())
}

func TestAvailableNamesTheRefusedNamespace(t *testing.T) {
	real, err := exec.LookPath("bwrap")
	require.NoError(t, err)
	// A bwrap that fails as the real one does on a host without network
	// namespaces (a jail's own options come through --args).
	fake := filepath.Join(sharedTempDir(t), "bwrap")
	script := `#!/bin/sh
for a in "$@"; do
	case "$a" in --args|--unshare-net)
		echo "bwrap: Creating new namespace failed: Operation not permitted" >&2
		exit 1;;
	esac
done
exec ` + real + ` "$@"
`
	require.NoError(t, os.WriteFile(fake, []byte(script), 0o755))

	err = Available(context.Background(), fake, false)
	require.Error(t, err)
	assert.Equal(t, "bubblewrap cannot create a network namespace on this host: "+
		"bwrap: Creating new namespace failed: Operation not permitted", err.Error())
}

// sharedTempDir is a temporary folder that the jail user can read too:
// bwrap starts as that user when the tests run as root.
func sharedTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "bubblewrap-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	return dir
}
