package fakekit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCopyTreeKeepsFilesFoldersAndLinks(t *testing.T) {
	from, to := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.MkdirAll(filepath.Join(from, "deep"), 0o750))
	require.NoError(t, os.WriteFile(filepath.Join(from, "deep", "f.txt"), []byte("kept"), 0o640))
	require.NoError(t, os.Symlink("deep/f.txt", filepath.Join(from, "link")))

	require.NoError(t, CopyTree(from, to))
	b, err := os.ReadFile(filepath.Join(to, "link"))
	require.NoError(t, err)
	assert.Equal(t, "kept", string(b))
	target, err := os.Readlink(filepath.Join(to, "link"))
	require.NoError(t, err)
	assert.Equal(t, "deep/f.txt", target, "a link is copied as a link")
	info, err := os.Stat(filepath.Join(to, "deep", "f.txt"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm())
}
