package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathsOutsideTheWorkspaceAreRefused(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	ctx := context.Background()
	for _, p := range []string{"/etc/passwd", "/workspace/../etc/passwd", "../outside.txt", "/", "/workspace-other/x"} {
		_, err := providertest.ReadAll(ctx, c, inst, p)
		assertRefused(t, err, p)
		assertRefused(t, c.WriteFile(ctx, inst, p, []byte("x")), p)
		_, err = c.Stat(ctx, inst, p)
		assertRefused(t, err, p)
		_, err = c.ListFiles(ctx, inst, p, 100)
		assertRefused(t, err, p)
		assertRefused(t, c.RemoveFile(ctx, inst, p), p)
	}
	_, err := os.Stat(filepath.Join(c.instances, "outside.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written beside the instance")
}

func assertRefused(t *testing.T, err error, p string) {
	t.Helper()
	var perr *provider.Error
	require.ErrorAs(t, err, &perr, "%s is refused", p)
	assert.NotErrorIs(t, err, provider.ErrNotFound, p)
	assert.Contains(t, err.Error(), "is outside /workspace", p)
}

func TestRelativePathsAreInTheWorkspace(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	require.NoError(t, c.WriteFile(context.Background(), inst, "notes/today.txt", []byte("hello")))
	got, err := providertest.ReadAll(context.Background(), c, inst, "/workspace/notes/today.txt")
	require.NoError(t, err)
	assert.Equal(t, "hello", string(got))
	info, err := c.Stat(context.Background(), inst, "notes")
	require.NoError(t, err)
	assert.Equal(t, provider.FileInfo{Path: "/workspace/notes", Dir: true, Size: info.Size, ModifiedAt: info.ModifiedAt}, info)
}

func TestSymlinksCannotLeadOut(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	ctx := context.Background()
	// A host file that an escape would reveal or overwrite.
	hostDir := t.TempDir()
	canary := filepath.Join(hostDir, "canary.txt")
	require.NoError(t, os.WriteFile(canary, []byte("host"), 0o644))

	res := c.exec(t, inst, "mkdir sub && echo inside > sub/file && ln -s sub/file inner && "+
		"ln -s "+canary+" canary && ln -s "+hostDir+" hostdir && ln -s / host && ln -s .. up && ln -s ../../.. far")
	require.Equal(t, 0, res.ExitCode, res.Output)

	got, err := providertest.ReadAll(ctx, c, inst, "/workspace/inner")
	require.NoError(t, err, "links within the workspace work")
	assert.Equal(t, "inside\n", string(got))

	for _, p := range []string{"canary", "hostdir/canary.txt", "host" + canary, "up/" + inst.ID + "/sub/file", "far" + canary} {
		got, err := providertest.ReadAll(ctx, c, inst, p)
		assert.ErrorIs(t, err, provider.ErrPath, "%s leads out", p)
		assert.Empty(t, got)
		assert.ErrorIs(t, c.WriteFile(ctx, inst, p, []byte("overwritten")), provider.ErrPath, p)
		if p != "canary" {
			assert.ErrorIs(t, c.RemoveFile(ctx, inst, p), provider.ErrPath, p)
		}
	}
	for _, p := range []string{"hostdir/new.txt", "up/new.txt", "host/tmp/" + marker} {
		err := c.WriteFile(ctx, inst, p, []byte("x"))
		assert.ErrorIs(t, err, provider.ErrPath, p)
		assert.NotContains(t, err.Error(), c.instances, "the message names the sandbox's path, not the host's")
	}
	_, err = c.ListFiles(ctx, inst, "hostdir", 100)
	assert.ErrorIs(t, err, provider.ErrPath)
	assert.ErrorContains(t, err, "/workspace/hostdir leads out of /workspace through a symbolic link")

	data, err := os.ReadFile(canary)
	require.NoError(t, err)
	assert.Equal(t, "host", string(data), "the host file is untouched")
	for _, p := range []string{filepath.Join(hostDir, "new.txt"), filepath.Join(c.instances, "new.txt"), filepath.Join(os.TempDir(), marker)} {
		_, err = os.Stat(p)
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing was written outside the instance: %s", p)
	}

	info, err := c.Stat(ctx, inst, "host")
	require.NoError(t, err, "a link leading out is described as itself")
	assert.False(t, info.Dir)
	require.NoError(t, c.RemoveFile(ctx, inst, "canary"), "removing a link removes the link")
	_, err = os.Stat(canary)
	assert.NoError(t, err, "and not what it points to")
}

func TestSpecialFilesDoNotHang(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	require.Equal(t, 0, c.exec(t, inst, "mkfifo pipe").ExitCode)
	start := time.Now()
	_, err := providertest.ReadAll(context.Background(), c, inst, "pipe")
	assert.ErrorContains(t, err, "not a regular file")
	assert.Error(t, c.WriteFile(context.Background(), inst, "pipe", []byte("x")))
	_, err = providertest.ReadAll(context.Background(), c, inst, "/workspace")
	assert.ErrorContains(t, err, "is a directory")
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestWrittenFilesBelongToCommands(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	require.NoError(t, c.WriteFile(context.Background(), inst, "/workspace/a/b/c.txt", []byte("one\n")))
	res := c.exec(t, inst, "echo two >> a/b/c.txt && touch a/new a/b/new && cat a/b/c.txt && rm -r a")
	assert.Equal(t, 0, res.ExitCode, "commands may change what WriteFile made: %s", res.Output)
	assert.Equal(t, "one\ntwo\n", res.Output)
}

func TestRemoveFile(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	ctx := context.Background()
	require.NoError(t, c.WriteFile(ctx, inst, "dir/file", nil))
	assert.Error(t, c.RemoveFile(ctx, inst, "dir"), "a directory with files stays")
	require.NoError(t, c.RemoveFile(ctx, inst, "dir/file"))
	require.NoError(t, c.RemoveFile(ctx, inst, "dir"), "an empty directory goes")
	assert.ErrorIs(t, c.RemoveFile(ctx, inst, "dir"), provider.ErrNotFound)
	assert.ErrorContains(t, c.RemoveFile(ctx, inst, "/workspace"), "cannot be removed")
}

func TestListingStopsAtItsLimit(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	require.Equal(t, 0, c.exec(t, inst, "mkdir big && cd big && seq 2500 | xargs touch").ExitCode)
	entries, err := c.ListFiles(context.Background(), inst, "big", 1200)
	require.NoError(t, err)
	assert.Len(t, entries, 1200, "read in chunks, up to the limit")
	assert.True(t, slices.IsSortedFunc(entries, func(a, b provider.FileInfo) int { return strings.Compare(a.Path, b.Path) }))
	entries, err = c.ListFiles(context.Background(), inst, "big", 5000)
	require.NoError(t, err)
	assert.Len(t, entries, 2500)
}

func TestFilesOfAGoneInstance(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	require.NoError(t, c.Destroy(context.Background(), inst))
	_, err := providertest.ReadAll(context.Background(), c, inst, "x")
	assert.ErrorIs(t, err, provider.ErrGone)
	assert.ErrorIs(t, c.WriteFile(context.Background(), inst, "x", nil), provider.ErrGone)
	_, err = c.Execute(context.Background(), inst, provider.ExecRequest{Command: "true"})
	assert.ErrorIs(t, err, provider.ErrGone)
	assert.True(t, errors.Is(err, provider.ErrGone))
}
