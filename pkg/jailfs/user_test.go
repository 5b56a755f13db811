package jailfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jailUser is the user the tests' door acts as, where the tests run as root.
var jailUser = User{UID: 61000, GID: 61000}

// asRoot skips a test of acting as another user where the tests are not
// root: the door then acts as the server, as every jail does.
func asRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("acting as another user takes a server running as root; a server that is not runs its jails, and opens their files, as itself")
	}
}

// folder makes a folder that belongs to the jail's user, in a folder that
// is root's alone, as an instance's is.
func folder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "instance")
	require.NoError(t, os.Mkdir(dir, 0o755))
	if os.Geteuid() == 0 {
		require.NoError(t, os.Chown(dir, jailUser.UID, jailUser.GID))
	}
	return dir
}

func owner(t *testing.T, name string) (uid, gid int) {
	t.Helper()
	info, err := os.Lstat(name)
	require.NoError(t, err)
	st := info.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

func TestTheDoorActsAsTheJailsUser(t *testing.T) {
	asRoot(t)
	dir := folder(t)
	// Root's own files in the folder: one only root may read, one only its
	// group (root's supplementary group) may read.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "roots"), []byte("root's"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "group"), []byte("root's group's"), 0o040))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "shut"), 0o700))

	err := jailUser.Open(dir, func(root *os.Root) error {
		for _, name := range []string{"roots", "group"} {
			_, err := root.ReadFile(name)
			assert.ErrorIs(t, err, fs.ErrPermission, "%s is not the user's to read", name)
		}
		_, err := root.ReadFile("shut/x")
		assert.ErrorIs(t, err, fs.ErrPermission, "nor is what a folder of root's holds")
		assert.ErrorIs(t, root.Chmod("roots", 0o666), fs.ErrPermission, "nor root's files to change")
		assert.ErrorIs(t, root.WriteFile("shut/planted", nil, 0o644), fs.ErrPermission, "… or to write in")

		require.NoError(t, root.Mkdir("made", 0o755))
		return root.WriteFile("made/new.txt", []byte("the user's"), 0o644)
	})
	require.NoError(t, err)
	for _, name := range []string{"made", "made/new.txt"} {
		uid, gid := owner(t, filepath.Join(dir, name))
		assert.Equal(t, []int{jailUser.UID, jailUser.GID}, []int{uid, gid}, "what the door makes is the user's: %s", name)
	}

	// The server's own goroutines still act as root.
	got, err := os.ReadFile(filepath.Join(dir, "roots"))
	require.NoError(t, err)
	assert.Equal(t, "root's", string(got))
}

func TestTheDoorNeverActsAsRoot(t *testing.T) {
	asRoot(t)
	err := User{}.Open(folder(t), func(*os.Root) error {
		t.Error("the door opened as root")
		return nil
	})
	assert.ErrorIs(t, err, ErrRootUser)
}

// The identity a door takes stays on its thread: it never reaches a
// goroutine that runs afterwards, however many doors were opened.
func TestTheDoorsIdentityEndsWithIt(t *testing.T) {
	asRoot(t)
	dir := folder(t)
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("root's"), 0o600))
	done := make(chan error)
	for range 50 {
		go func() {
			done <- jailUser.Open(dir, func(root *os.Root) error {
				_, err := root.Stat(".")
				return err
			})
		}()
		go func() {
			_, err := os.ReadFile(secret)
			done <- err
		}()
	}
	for range 100 {
		require.NoError(t, <-done)
	}
	_, err := os.ReadFile(secret)
	assert.NoError(t, err)
}

func TestAFailedUseIsTheDoorsError(t *testing.T) {
	want := errors.New("the use failed")
	err := jailUser.Open(folder(t), func(*os.Root) error { return want })
	assert.ErrorIs(t, err, want)
	_, err = os.Stat(filepath.Join(t.TempDir(), "missing"))
	require.Error(t, err)
	assert.Error(t, jailUser.Open(filepath.Join(t.TempDir(), "missing"), func(*os.Root) error { return nil }))
}

// A use that panics panics in its caller, where a server's recovery can
// answer for it, not on the door's own thread, which would end the server.
func TestAPanicInTheDoorReachesItsCaller(t *testing.T) {
	assert.PanicsWithValue(t, "the use panicked", func() {
		_ = jailUser.Open(folder(t), func(*os.Root) error { panic("the use panicked") })
	})
}
