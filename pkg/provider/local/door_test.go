package local

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// masterKey stands for the server's secret.key, in its data folder.
const masterKey = "MASTER-KEY-9f8e7d6c5b4a"

// swapper is a command that makes a folder d holding files named as the
// server's data folder's, and a link l to the data folder seen from the
// host (instances/loc-…/l → ../..), then swaps the two, atomically and as
// fast as it can, until its time is up: the attack on a server that copies
// a jail's files by path.
const swapper = `python3 -c '
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
os.makedirs("d", exist_ok=True)
for name in ("secret.key", "auxilia.db"):
    open("d/" + name, "w").write("decoy")
if not os.path.islink("l"):
    os.symlink("../..", "l")
open("swapping", "w").close()
end = time.time() + float(sys.argv[1])
while time.time() < end:
    libc.renameat2(-100, b"d", -100, b"l", 2)
' `

// swap runs the swapper in inst for as long as the test, and returns once
// it swaps.
func swap(t *testing.T, c testClient, inst provider.Instance) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		_, _ = c.Execute(ctx, inst, provider.ExecRequest{Command: swapper + "120 " + marker, Timeout: 2 * time.Minute})
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	require.Eventually(t, func() bool {
		_, err := c.Stat(context.Background(), inst, "swapping")
		return err == nil
	}, time.Minute, 20*time.Millisecond, "the swapper starts")
}

// Keeping files, and making an instance from them, never reaches the host
// however the instance's command swaps its folders for links meanwhile:
// on a host with cgroups the door works on a stopped instance, and without
// them it still never follows a link.
func TestKeptFilesHoldNothingOfTheHost(t *testing.T) {
	for _, hostCgroups := range []bool{true, false} {
		t.Run(fmt.Sprintf("cgroups=%v", hostCgroups), func(t *testing.T) {
			c := newClient(t)
			if !hostCgroups {
				c.cgroups = nil // nothing stops the command while the door works
			}
			require.NoError(t, os.WriteFile(filepath.Join(c.dataDir, "secret.key"), []byte(masterKey), 0o600))
			inst := c.create(t)
			swap(t, c, inst)
			ctx := context.Background()
			for range 8 {
				kept, err := c.Keep(ctx, inst)
				require.NoError(t, err)
				archive, err := os.ReadFile(c.keptArchive(kept.ID))
				require.NoError(t, err)
				require.False(t, bytes.Contains(archive, []byte(masterKey)), "the kept files hold the server's key")

				restored, err := c.CreateFrom(ctx, provider.Labels{Thread: "restored"}, kept)
				require.NoError(t, err)
				for _, name := range []string{"d/secret.key", "l/secret.key"} {
					data, _ := providertest.ReadAll(ctx, c, restored, name)
					require.NotEqual(t, masterKey, string(data), "read_file of %s returned the server's key", name)
				}
				require.NoError(t, c.Destroy(ctx, restored))
				require.NoError(t, c.Forget(ctx, kept))
			}
			key, err := os.ReadFile(filepath.Join(c.dataDir, "secret.key"))
			require.NoError(t, err)
			assert.Equal(t, masterKey, string(key), "the host's file is as it was")
		})
	}
}

// The file tools never reach the host either, however the instance's
// command swaps its folders for links while they work.
func TestFileToolsHoldAgainstASwappingCommand(t *testing.T) {
	c := newClient(t)
	require.NoError(t, os.WriteFile(filepath.Join(c.dataDir, "secret.key"), []byte(masterKey), 0o600))
	inst := c.create(t)
	swap(t, c, inst)
	ctx := context.Background()
	for range 200 {
		for _, dir := range []string{"d", "l"} {
			_ = c.WriteFile(ctx, inst, dir+"/planted.txt", []byte("planted"))
			data, _ := providertest.ReadAll(ctx, c, inst, dir+"/secret.key")
			require.NotEqual(t, masterKey, string(data), "read_file of %s/secret.key returned the server's key", dir)
			files, _ := c.ListFiles(ctx, inst, dir, 100)
			for _, f := range files {
				require.NotContains(t, []string{"instances", "python"}, path.Base(f.Path), "ls of %s listed the data folder", dir)
			}
			_ = c.RemoveFile(ctx, inst, dir+"/secret.key")
		}
	}
	_, err := os.Lstat(filepath.Join(c.dataDir, "planted.txt"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "write_file wrote into the data folder")
	key, err := os.ReadFile(filepath.Join(c.dataDir, "secret.key"))
	require.NoError(t, err, "remove_file removed the server's key")
	assert.Equal(t, masterKey, string(key))
}

// The file tools act as the instance's user: what a command could not
// open, they cannot either, and what they make is the user's.
func TestFileToolsActAsTheInstancesUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a server that is not root runs commands as itself: there is no other user to act as")
	}
	c := newClient(t)
	inst := c.create(t)
	ctx := context.Background()
	dir, done, err := c.workspace("test", inst)
	require.NoError(t, err)
	defer done()
	// A file of root's in the folder, as a server that copied as root left.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "roots.txt"), []byte("root's"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "roots"), 0o700))

	_, err = providertest.ReadAll(ctx, c, inst, "roots.txt")
	assert.ErrorContains(t, err, "permission denied")
	assert.Error(t, c.WriteFile(ctx, inst, "roots.txt", []byte("x")))
	assert.Error(t, c.WriteFile(ctx, inst, "roots/planted.txt", []byte("x")))
	res := c.exec(t, inst, "cat roots.txt")
	assert.NotEqual(t, 0, res.ExitCode, "a command cannot read it either: %s", res.Output)

	require.NoError(t, c.WriteFile(ctx, inst, "made/by/the/tool.txt", []byte("x")))
	user := c.user(t, inst)
	res = c.exec(t, inst, "stat -c %u:%g made made/by/the/tool.txt")
	assert.Equal(t, fmt.Sprintf("%d:%d\n%[1]d:%d\n", user.UID, user.GID), res.Output)
}

// Each instance runs as a user of its own: one instance that uses up
// what the kernel gives each user leaves another its own share.
func TestEachInstanceRunsAsAUserOfItsOwn(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a server that is not root runs every jail as itself")
	}
	c := newClient(t)
	a, b := c.create(t), c.create(t)
	ua, ub := c.user(t, a), c.user(t, b)
	assert.NotEqual(t, ua, ub)
	for _, u := range []int{ua.UID, ub.UID} {
		assert.True(t, u >= c.ids.UID && u < c.ids.UID+c.ids.Count, "%d is of the run %s", u, c.ids)
	}
	assert.Equal(t, fmt.Sprintf("%d\n", ua.UID), c.exec(t, a, "id -u").Output)

	// a holds every inotify instance its user may have, while b makes one.
	most, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := make(chan provider.ExecResult, 1)
	go func() {
		res, _ := c.Execute(ctx, a, provider.ExecRequest{Timeout: time.Minute, Command: `python3 -c '
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
fds = []
while libc.inotify_init() >= 0:
    fds.append(1)
print(len(fds), "held", flush=True)
open("holding", "w").close()
time.sleep(60)
' ` + marker})
		held <- res
	}()
	require.Eventually(t, func() bool {
		_, err := c.Stat(context.Background(), a, "holding")
		return err == nil
	}, time.Minute, 20*time.Millisecond)
	res := c.exec(t, b, `python3 -c 'import ctypes; print(ctypes.CDLL(None).inotify_init() >= 0)'`)
	assert.Equal(t, "True\n", res.Output, "b keeps its own inotify instances while a holds all %s of its user's", strings.TrimSpace(string(most)))
	cancel()
	<-held
}

// Kept files of an older version are a folder whose files belong to the
// user every jail then ran as: they make an instance as its own user.
func TestKeptFilesOfAnOlderVersionAreRestored(t *testing.T) {
	c := newClient(t)
	kept := provider.Kept{ID: "kept-00112233445566aa"}
	folder := filepath.Join(c.keptFolder(), kept.ID)
	require.NoError(t, os.MkdirAll(filepath.Join(folder, "notes"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "notes", "todo.txt"), []byte("older\n"), 0o600))
	if os.Geteuid() == 0 {
		for _, name := range []string{"", "notes", "notes/todo.txt"} {
			require.NoError(t, os.Lchown(filepath.Join(folder, name), legacyUser.UID, legacyUser.GID))
		}
	}
	inst, err := c.CreateFrom(context.Background(), provider.Labels{Thread: "older"}, kept)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	user := c.user(t, inst)
	res := c.exec(t, inst, "cat notes/todo.txt && stat -c %u notes/todo.txt && echo more >> notes/todo.txt")
	assert.Equal(t, fmt.Sprintf("older\n%d\n", user.UID), res.Output)

	require.NoError(t, c.Forget(context.Background(), kept))
	_, err = os.Stat(folder)
	assert.True(t, errors.Is(err, os.ErrNotExist))
}

// A file the instance's user shut even to itself is kept, and comes back
// shut.
func TestKeepingKeepsFilesTheUserShut(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	ctx := context.Background()
	res := c.exec(t, inst, "mkdir locked && echo inside > locked/f && echo shut > shut.txt && chmod 000 shut.txt locked")
	require.Equal(t, 0, res.ExitCode, res.Output)
	kept, err := c.Keep(ctx, inst)
	require.NoError(t, err)
	archive, err := os.Stat(c.keptArchive(kept.ID))
	require.NoError(t, err)
	assert.Equal(t, archive.Size(), kept.Bytes, "its size is its archive's, for the usage")
	restored, err := c.CreateFrom(ctx, provider.Labels{Thread: "restored"}, kept)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), restored) })
	res = c.exec(t, restored, "stat -c %a shut.txt locked && chmod 700 shut.txt locked && cat shut.txt locked/f")
	assert.Equal(t, "0\n0\nshut\ninside\n", res.Output)
	var st syscall.Stat_t
	dir, done, err := c.workspace("test", inst)
	require.NoError(t, err)
	defer done()
	require.NoError(t, syscall.Lstat(filepath.Join(dir, "shut.txt"), &st))
	assert.Zero(t, st.Mode&0o777, "the kept instance's file is shut again")
}
