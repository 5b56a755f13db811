package jailfs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// host is what lies outside a jail's folder: a key only root may read, and
// a file anyone may, which acting as the jail's user alone would not keep
// from a door that follows links.
const (
	hostKey    = "MASTER-KEY-0123456789"
	hostPublic = "THE HOST'S OWN FILE"
)

// swapping makes a folder d in dir whose files share the host's names,
// and a link l in dir to the host's folder, and exchanges the two
// atomically, as fast as it can, until the test ends: what a hostile
// command does while the server works on its folder.
func swapping(t *testing.T) (dir, host string, swaps *atomic.Int64) {
	t.Helper()
	host = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(host, "secret.key"), []byte(hostKey), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(host, "public.txt"), []byte(hostPublic), 0o644))
	dir = folder(t)
	write(t, filepath.Join(dir, "d", "secret.key"), "decoy", 0o644)
	write(t, filepath.Join(dir, "d", "public.txt"), "decoy", 0o644)
	up, err := filepath.Rel(dir, host)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(up, filepath.Join(dir, "l")))
	give(t, dir)

	swaps = new(atomic.Int64)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		d, l := filepath.Join(dir, "d"), filepath.Join(dir, "l")
		for {
			select {
			case <-stop:
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, l, unix.RENAME_EXCHANGE) == nil {
				swaps.Add(1)
			}
		}
	})
	t.Cleanup(func() {
		close(stop)
		wg.Wait()
	})
	return dir, host, swaps
}

// leaks reports whether data holds anything of the host's.
func leaks(data []byte) bool {
	return bytes.Contains(data, []byte(hostKey)) || bytes.Contains(data, []byte(hostPublic))
}

// treeLeaks reports whether a file under dir holds anything of the host's.
func treeLeaks(t *testing.T, dir string) bool {
	t.Helper()
	leaked := false
	_ = filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			leaked = leaked || leaks(data)
		}
		return nil
	})
	return leaked
}

const attempts = 300

// The door holds against a jail that keeps swapping a folder for a link to
// the host while the door works: nothing outside the jail's folder is read
// or written, and a link is kept as a link.
func TestTheDoorHoldsAgainstFoldersSwappedForLinks(t *testing.T) {
	dir, host, swaps := swapping(t)
	var sawLink, sawFolder int
	for range attempts {
		var buf bytes.Buffer
		_, err := jailUser.Archive(dir, &buf, limits)
		require.NoError(t, err)
		require.False(t, leaks(buf.Bytes()), "an archive holds the host's files")
		got := members(t, buf.Bytes())
		if _, ok := got["d/"]; ok {
			sawFolder++
		}
		if _, ok := got["l/"]; ok {
			sawFolder++
		}
		if got["d"].link != "" || got["l"].link != "" {
			sawLink++
		}

		dst := folder(t)
		_, err = jailUser.Copy(dir, dst, limits)
		require.NoError(t, err)
		require.False(t, treeLeaks(t, dst), "a copy holds the host's files")

		require.NoError(t, jailUser.Open(dir, func(root *os.Root) error {
			for _, name := range []string{"d/public.txt", "l/public.txt", "d/secret.key"} {
				data, _ := root.ReadFile(name)
				require.False(t, leaks(data), "a read through %s reached the host", name)
			}
			return nil
		}))

		planted := tarWith(t, "d/planted.txt", "l/planted.txt")
		_, _ = jailUser.Extract(dir, bytes.NewReader(planted), limits)
		_, err = os.Lstat(filepath.Join(host, "planted.txt"))
		require.True(t, os.IsNotExist(err), "an extract wrote through a link onto the host")
	}
	t.Logf("%d swaps; the door met the folder %d times and the link %d times", swaps.Load(), sawFolder, sawLink)
	assert.Positive(t, sawLink, "the race was run")
	assert.Positive(t, sawFolder, "the race was run")

	require.NoError(t, jailUser.Empty(dir))
	for _, name := range []string{"secret.key", "public.txt"} {
		_, err := os.Stat(filepath.Join(host, name))
		assert.NoError(t, err, "emptying the folder removed the host's %s", name)
	}
}

// The same race steers a copy made by path, as `cp -a` makes it, onto the
// host: the attack the door is for is real.
func TestACopyByPathIsSteeredOntoTheHost(t *testing.T) {
	dir, _, _ := swapping(t)
	for i := range attempts {
		dst := t.TempDir()
		// cp complains of files that changed under it, and copies the rest.
		_ = exec.Command("cp", "-a", "--", dir+"/.", dst).Run()
		if treeLeaks(t, dst) {
			t.Logf("cp -a copied the host's files on attempt %d", i+1)
			return
		}
	}
	t.Fatalf("cp -a never followed the swapped link in %d attempts", attempts)
}
