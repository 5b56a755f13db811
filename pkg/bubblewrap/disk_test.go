package bubblewrap

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newDisk makes a disk of sizeMB MiB for the jail user, unmounted and
// removed at the end of the test. Disks take root; an unprivileged server
// says why it has none.
func newDisk(t *testing.T, sizeMB int) Disk {
	t.Helper()
	if os.Geteuid() != 0 {
		require.EqualError(t, DisksSupported(), "the server does not run as root")
		t.Skip("disks take root")
	}
	require.NoError(t, DisksSupported())
	parent := t.TempDir()
	d := Disk{Image: filepath.Join(parent, "disk.ext4"), Dir: filepath.Join(parent, "folder")}
	require.NoError(t, os.Mkdir(d.Dir, 0o700))
	t.Cleanup(func() {
		require.NoError(t, UnmountUnder(parent))
		require.NoError(t, d.Remove())
	})
	uid, gid := Jail{}.User()
	require.NoError(t, d.Make(context.Background(), sizeMB, uid, gid))
	return d
}

// use mounts d for the rest of the test.
func use(t *testing.T, d Disk) {
	t.Helper()
	done, err := d.Use()
	require.NoError(t, err)
	t.Cleanup(done)
}

// allocated is how much of the host's disk a file takes.
func allocated(t *testing.T, name string) int64 {
	t.Helper()
	info, err := os.Stat(name)
	require.NoError(t, err)
	return info.Sys().(*syscall.Stat_t).Blocks * 512
}

func mounted(t *testing.T, dir string) bool {
	t.Helper()
	m, err := isMountPoint(dir)
	require.NoError(t, err)
	return m
}

func TestDiskBoundsWhatJailsWrite(t *testing.T) {
	d := newDisk(t, 64)
	assert.Less(t, allocated(t, d.Image), int64(16<<20), "a new disk takes little of the host's")
	use(t, d)
	j := newJail(t)
	j.Root = d.Dir

	_, stderr, res := run(t, j, "head -c 100M /dev/zero > big")
	assert.NotEqual(t, 0, res.ExitCode, "a write past the disk's size fails")
	assert.Contains(t, stderr, "No space left on device")
	assert.LessOrEqual(t, allocated(t, d.Image), int64(64<<20), "the host gave no more than the disk's size")

	stdout, _, _ := run(t, j, "rm big && head -c 10M /dev/zero > small && echo room again")
	assert.Equal(t, "room again\n", stdout)
}

func TestDiskBelongsToTheJailUserAndHidesHostPaths(t *testing.T) {
	d := newDisk(t, 64)
	use(t, d)
	j := newJail(t)
	j.Root = d.Dir
	uid, gid := j.User()
	stdout, _, _ := run(t, j, "ls -A; stat -c '%u:%g' .; touch mine && echo written; cat /proc/self/mountinfo")
	lines := strings.SplitN(stdout, "\n", 3)
	require.Len(t, lines, 3, stdout)
	assert.Equal(t, itoa(uid)+":"+itoa(gid), lines[0], "an empty folder (no lost+found), the jail user's")
	assert.Equal(t, "written", lines[1])
	mountinfo := lines[2]
	assert.Contains(t, mountinfo, " / /workspace ", "the jail's folder is the root of its own filesystem")
	assert.NotContains(t, mountinfo, filepath.Dir(d.Dir), "and the mount table does not tell where it is on the host")
}

func TestDiskIsMountedWhileInUse(t *testing.T) {
	d := newDisk(t, 64)
	assert.False(t, mounted(t, d.Dir), "an unused disk is not mounted")
	first, err := d.Use()
	require.NoError(t, err)
	second, err := d.Use()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(d.Dir, "kept"), []byte("kept"), 0o644))
	first()
	first()
	assert.True(t, mounted(t, d.Dir), "mounted while one use is left")
	second()
	assert.False(t, mounted(t, d.Dir), "unmounted after the last")
	_, err = os.Stat(filepath.Join(d.Dir, "kept"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the files are on the disk, not in the folder")

	use(t, d)
	data, err := os.ReadFile(filepath.Join(d.Dir, "kept"))
	require.NoError(t, err)
	assert.Equal(t, "kept", string(data), "and come back with it")
}

// loopsOf counts the loop devices bound to image.
func loopsOf(t *testing.T, image string) int {
	bound, err := filepath.Glob("/sys/block/loop*/loop/backing_file")
	require.NoError(t, err)
	n := 0
	for _, b := range bound {
		if strings.TrimSpace(readString(b)) == image {
			n++
		}
	}
	return n
}

func TestDiskStillHeldIsSharedNotMountedTwice(t *testing.T) {
	d := newDisk(t, 64)
	done, err := d.Use()
	require.NoError(t, err)
	held, err := os.Create(filepath.Join(d.Dir, "held"))
	require.NoError(t, err)
	done() // unmounted, but the open file keeps the filesystem alive
	assert.False(t, mounted(t, d.Dir))

	use(t, d)
	assert.Equal(t, 1, loopsOf(t, d.Image), "the new mount uses the filesystem still alive")
	_, err = held.WriteString("through the old mount")
	require.NoError(t, err)
	require.NoError(t, held.Close())
	data, err := os.ReadFile(filepath.Join(d.Dir, "held"))
	require.NoError(t, err)
	assert.Equal(t, "through the old mount", string(data), "one filesystem: what one writes, the other reads")
}

func TestDiskRemove(t *testing.T) {
	d := newDisk(t, 64)
	_, err := d.Use()
	require.NoError(t, err)
	require.NoError(t, d.Remove())
	assert.False(t, mounted(t, d.Dir))
	assert.NoFileExists(t, d.Image)
	assert.Eventually(t, func() bool { return loopsOf(t, d.Image) == 0 }, 5*time.Second, 10*time.Millisecond, "its loop device is free again")
	require.NoError(t, d.Remove(), "removing twice is fine")
}

func TestUnmountUnderLeavesWhatIsInUse(t *testing.T) {
	left, used := newDisk(t, 64), newDisk(t, 64)
	use(t, used)
	// Mounted as by a server that stopped without unmounting it.
	require.NoError(t, left.mount())

	require.NoError(t, UnmountUnder(filepath.Dir(left.Dir)))
	require.NoError(t, UnmountUnder(filepath.Dir(used.Dir)))
	assert.False(t, mounted(t, left.Dir), "what no one uses is unmounted")
	assert.True(t, mounted(t, used.Dir), "what this server uses stays")
}

func TestDiskUsesComeAndGoAtOnce(t *testing.T) {
	d := newDisk(t, 64)
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				done, err := d.Use()
				if err != nil {
					errs <- err
					continue
				}
				// Each use finds the disk mounted: its files, not the bare folder.
				errs <- os.WriteFile(filepath.Join(d.Dir, fmt.Sprintf("%d-%d", g, i)), nil, 0o644)
				done()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.False(t, mounted(t, d.Dir), "the last use unmounted it")
	use(t, d)
	entries, err := os.ReadDir(d.Dir)
	require.NoError(t, err)
	assert.Len(t, entries, 8*20, "every use wrote to the disk")
	assert.Equal(t, 1, loopsOf(t, d.Image))
}

// inUserNamespaceEnv marks the run of TestDisksNeedTheHostsUserNamespace
// inside a user namespace of its own.
const inUserNamespaceEnv = "BUBBLEWRAP_TEST_IN_USERNS"

func TestDisksNeedTheHostsUserNamespace(t *testing.T) {
	if os.Getenv(inUserNamespaceEnv) != "" {
		// Root with every capability, but of a user namespace, as in a
		// rootless container: the kernel would refuse to mount ext4.
		require.Equal(t, 0, os.Geteuid())
		assert.EqualError(t, DisksSupported(), "the server may not mount filesystems (it lacks CAP_SYS_ADMIN, or runs in a user namespace)")
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("run as root, it runs itself again in a user namespace")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, "-test.run=^TestDisksNeedTheHostsUserNamespace$", "-test.count=1")
	cmd.Env = append(os.Environ(), inUserNamespaceEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1}}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.NotContains(t, string(out), "no tests to run")
}
