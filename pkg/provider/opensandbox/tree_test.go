package opensandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

func listTree(t *testing.T, client provider.Client, inst provider.Instance, root string, limit int) ([]string, bool, error) {
	t.Helper()
	lister, ok := client.(provider.TreeLister)
	require.True(t, ok, "an OpenSandbox client lists trees")
	return lister.ListTree(context.Background(), inst, root, ".venv", limit)
}

// A tree comes in one call, folder by folder, leaving a skipped folder out
// with all it holds, and a symbolic link unfollowed.
func TestListTreeListsEveryPathOnce(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	res := run(t, client, inst, "mkdir -p /workspace/t/src/deep /workspace/t/.venv/lib /workspace/t/src/.venv && "+
		"touch /workspace/t/a /workspace/t/src/b /workspace/t/src/deep/c /workspace/t/.venv/lib/d /workspace/t/src/.venv/e /workspace/t/z && "+
		"ln -s src /workspace/t/link")
	require.Equal(t, 0, res.ExitCode, res.Output)
	paths, truncated, err := listTree(t, client, inst, "/workspace/t", 100)
	require.NoError(t, err)
	assert.False(t, truncated)
	assert.Equal(t, []string{"/workspace/t/a", "/workspace/t/link", "/workspace/t/src", "/workspace/t/src/b",
		"/workspace/t/src/deep", "/workspace/t/src/deep/c", "/workspace/t/z"}, paths)

	paths, truncated, err = listTree(t, client, inst, "/workspace/t", 5)
	require.NoError(t, err)
	assert.True(t, truncated, "more than the limit says so")
	assert.Equal(t, []string{"/workspace/t/a", "/workspace/t/link", "/workspace/t/src", "/workspace/t/src/b", "/workspace/t/src/deep"}, paths)

	paths, _, err = listTree(t, client, inst, "/workspace/t/.venv", 100)
	require.NoError(t, err)
	assert.Equal(t, []string{"/workspace/t/.venv/lib", "/workspace/t/.venv/lib/d"}, paths, "a skipped folder searched itself is listed")

	_, _, err = listTree(t, client, inst, "/workspace/missing", 100)
	assert.ErrorIs(t, err, provider.ErrNotFound)
}

// Skipped folders execd still sends are read only up to the limit: past
// it, the listing gives way to a walk that never enters them.
func TestListTreeGivesWayPastTheLimitInSkippedFolders(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	res := run(t, client, inst, "mkdir -p /workspace/t/.venv && touch /workspace/t/.venv/1 /workspace/t/.venv/2 /workspace/t/.venv/3")
	require.Equal(t, 0, res.ExitCode, res.Output)
	_, _, err := listTree(t, client, inst, "/workspace/t", 4)
	require.NoError(t, err, "the folder and its three files are within the limit")
	_, _, err = listTree(t, client, inst, "/workspace/t", 3)
	assert.ErrorIs(t, err, provider.ErrUnsupported)
}

// An execd from before /directories/list cannot list a tree: it says so,
// for the caller to walk instead.
func TestListTreeOnAnOlderExecdIsUnsupported(t *testing.T) {
	_, client := setup(t, opensandboxtest.Options{NoDirectoryListing: true})
	inst := create(t, client)
	_, _, err := listTree(t, client, inst, "/workspace", 100)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "cannot list a folder's tree")
}
