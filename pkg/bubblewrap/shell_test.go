package bubblewrap

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Where the jail has bash, a command runs in it: what sh (dash) refuses works.
func TestInBashRunsBashWhereThereIsOne(t *testing.T) {
	j := newJail(t)
	stdout, stderr, res := run(t, j, InBash(`a=(x 'y z'); [[ ${#a[@]} == 2 ]] && echo "${a[1]//z/w}"; exit 4`))
	assert.Equal(t, "y w\n", stdout)
	assert.Empty(t, stderr)
	assert.Equal(t, 4, res.ExitCode, "the command's own exit code")
}

// Where the jail has no bash on its PATH, the same line runs in sh.
func TestInBashFallsBackOnSh(t *testing.T) {
	j := newJail(t)
	bin := filepath.Join(j.Root, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.Symlink("/bin/sh", filepath.Join(bin, "sh")))
	j.Env = []string{"PATH=" + j.WorkDir + "/bin"}
	stdout, _, res := run(t, j, InBash(`echo "it's $0"; exit 5`))
	assert.Equal(t, "it's sh\n", stdout)
	assert.Equal(t, 5, res.ExitCode)
}
