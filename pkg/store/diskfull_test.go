package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallDisk mounts a small filesystem for the test, or skips it where the
// tests may not mount one (not root, no tmpfs).
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small filesystem takes root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small filesystem: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill writes a file until the disk is full.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			require.True(t, errors.Is(err, syscall.ENOSPC), "%v", err)
			return
		}
	}
}

// With the embedded database's disk full, a write fails naming the full
// disk and the store says so until space is freed; then writes succeed.
func TestAFullDiskIsNamedUntilSpaceIsFreed(t *testing.T) {
	ctx := context.Background()
	dir := smallDisk(t, "8m")
	db, err := store.Open(ctx, "", dir)
	require.NoError(t, err)
	defer db.Close()
	_, err = db.Migrate(ctx)
	require.NoError(t, err)
	filler := filepath.Join(dir, "filler")
	fill(t, filler)

	var writeErr error
	for i := 0; i < 200 && writeErr == nil; i++ { // until a page the file lacks is needed
		_, writeErr = db.Workspaces().Ensure(ctx, fmt.Sprintf("workspace-%03d", i))
	}
	require.Error(t, writeErr, "a write fails on a full disk")
	t.Logf("on a full disk: %v", writeErr)
	assert.ErrorIs(t, store.Outage(writeErr), store.ErrDiskFull, "%v", writeErr)
	assert.True(t, db.DiskFull())

	require.NoError(t, os.Remove(filler))
	_, err = db.Workspaces().Ensure(ctx, "after")
	require.NoError(t, err)
	assert.False(t, db.DiskFull(), "it recovers by itself once space is freed")
}
