package jailfs

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var limits = Limits{MaxBytes: 1 << 20, MaxEntries: 1000}

// tarOf archives dir through the door.
func tarOf(t *testing.T, dir string, lim Limits) ([]byte, Stats, error) {
	t.Helper()
	var buf bytes.Buffer
	stats, err := jailUser.Archive(dir, &buf, lim)
	return buf.Bytes(), stats, err
}

func unpack(t *testing.T, dir string, data []byte, lim Limits) (Stats, error) {
	t.Helper()
	return jailUser.Extract(dir, bytes.NewReader(data), lim)
}

// member is one entry of an archive, as the tests read it back.
type member struct {
	kind       byte
	mode       int64
	body, link string
}

func members(t *testing.T, data []byte) map[string]member {
	t.Helper()
	got := map[string]member{}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return got
		}
		require.NoError(t, err)
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		got[hdr.Name] = member{kind: hdr.Typeflag, mode: hdr.Mode, body: string(body), link: hdr.Linkname}
	}
}

func write(t *testing.T, name, body string, mode os.FileMode) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
	require.NoError(t, os.WriteFile(name, []byte(body), mode))
	require.NoError(t, os.Chmod(name, mode))
}

// give hands everything under dir to the jail's user, as if its commands
// had made it.
func give(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	require.NoError(t, filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, jailUser.UID, jailUser.GID)
	}))
}

func TestATreeRoundTrips(t *testing.T) {
	src := folder(t)
	write(t, filepath.Join(src, "a", "b", "f.txt"), "content", 0o640)
	write(t, filepath.Join(src, "top.sh"), "#!/bin/sh\n", 0o755)
	require.NoError(t, os.Symlink("a/b/f.txt", filepath.Join(src, "link")))
	require.NoError(t, os.Symlink("../../outside", filepath.Join(src, "up")))
	require.NoError(t, os.Mkdir(filepath.Join(src, "empty"), 0o751))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(filepath.Join(src, "top.sh"), old, old))
	give(t, src)

	data, stats, err := tarOf(t, src, limits)
	require.NoError(t, err)
	assert.Equal(t, Stats{Entries: 7, Bytes: int64(len("content") + len("#!/bin/sh\n"))}, stats)
	got := members(t, data)
	assert.Equal(t, member{kind: tar.TypeReg, mode: 0o640, body: "content"}, got["a/b/f.txt"])
	assert.Equal(t, member{kind: tar.TypeSymlink, mode: 0o777, link: "../../outside"}, got["up"], "links are kept as they are")
	assert.Equal(t, member{kind: tar.TypeDir, mode: 0o751}, got["empty/"])

	for name, into := range map[string]func(dst string) (Stats, error){
		"extract": func(dst string) (Stats, error) { return unpack(t, dst, data, limits) },
		"copy":    func(dst string) (Stats, error) { return jailUser.Copy(src, dst, limits) },
	} {
		t.Run(name, func(t *testing.T) {
			dst := folder(t)
			unpacked, err := into(dst)
			require.NoError(t, err)
			assert.Equal(t, stats, unpacked)
			body, err := os.ReadFile(filepath.Join(dst, "link"))
			require.NoError(t, err)
			assert.Equal(t, "content", string(body))
			target, err := os.Readlink(filepath.Join(dst, "up"))
			require.NoError(t, err)
			assert.Equal(t, "../../outside", target)
			for name, mode := range map[string]os.FileMode{"top.sh": 0o755, "a/b/f.txt": 0o640, "empty": 0o751, "a": 0o755} {
				info, err := os.Stat(filepath.Join(dst, name))
				require.NoError(t, err)
				assert.Equal(t, mode, info.Mode().Perm(), "%s keeps its mode", name)
			}
			info, err := os.Stat(filepath.Join(dst, "top.sh"))
			require.NoError(t, err)
			assert.True(t, info.ModTime().Equal(old), "times are kept: %v", info.ModTime())
			if os.Geteuid() == 0 {
				uid, gid := owner(t, filepath.Join(dst, "a", "b", "f.txt"))
				assert.Equal(t, []int{jailUser.UID, jailUser.GID}, []int{uid, gid})
			}
		})
	}
}

// A file or folder the user shut even to itself is the user's to open:
// it is kept, and shut again after.
func TestFilesTheUserShutAreKept(t *testing.T) {
	src := folder(t)
	write(t, filepath.Join(src, "locked", "inside.txt"), "in a shut folder", 0o644)
	write(t, filepath.Join(src, "nothing.txt"), "mode 000", 0o000)
	give(t, src)
	require.NoError(t, os.Chmod(filepath.Join(src, "locked"), 0o000))

	data, _, err := tarOf(t, src, limits)
	require.NoError(t, err)
	got := members(t, data)
	assert.Equal(t, member{kind: tar.TypeReg, mode: 0, body: "mode 000"}, got["nothing.txt"])
	assert.Equal(t, member{kind: tar.TypeDir, mode: 0}, got["locked/"])
	assert.Equal(t, "in a shut folder", got["locked/inside.txt"].body)
	for _, name := range []string{"nothing.txt", "locked"} {
		info, err := os.Lstat(filepath.Join(src, name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0), info.Mode().Perm(), "%s is shut again", name)
	}

	dst := folder(t)
	_, err = unpack(t, dst, data, limits)
	require.NoError(t, err)
	info, err := os.Lstat(filepath.Join(dst, "locked"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0), info.Mode().Perm(), "the shut folder is shut once what it holds is in")
	require.NoError(t, os.Chmod(filepath.Join(dst, "locked"), 0o755))
	body, err := os.ReadFile(filepath.Join(dst, "locked", "inside.txt"))
	require.NoError(t, err)
	assert.Equal(t, "in a shut folder", string(body))

	// What is not the user's stays shut to the door.
	if os.Geteuid() == 0 {
		require.NoError(t, os.Lchown(filepath.Join(src, "nothing.txt"), 0, 0))
		_, _, err = tarOf(t, src, limits)
		assert.ErrorIs(t, err, os.ErrPermission)
	}
}

func TestLimitsBoundATree(t *testing.T) {
	src := folder(t)
	write(t, filepath.Join(src, "a"), "12345", 0o644)
	write(t, filepath.Join(src, "b"), "67890", 0o644)
	give(t, src)
	data, _, err := tarOf(t, src, limits)
	require.NoError(t, err)
	for _, lim := range []Limits{{MaxBytes: 9, MaxEntries: 10}, {MaxBytes: 100, MaxEntries: 1}} {
		_, _, err := tarOf(t, src, lim)
		assert.ErrorIs(t, err, ErrTooLarge, "archive %+v", lim)
		_, err = unpack(t, folder(t), data, lim)
		assert.ErrorIs(t, err, ErrTooLarge, "extract %+v", lim)
	}
	deep := folder(t)
	write(t, filepath.Join(deep, strings.Repeat("d/", maxDepth+1)+"f"), "deep", 0o644)
	give(t, deep)
	_, _, err = tarOf(t, deep, Limits{MaxBytes: 1 << 20, MaxEntries: 10_000})
	var unsafe *UnsafeEntryError
	assert.ErrorAs(t, err, &unsafe, "a tree deeper than %d folders", maxDepth)
}

func TestExtractRefusesHostileEntries(t *testing.T) {
	outside := t.TempDir()
	for name, entries := range map[string][]*tar.Header{
		"absolute path":          {{Name: filepath.Join(outside, "abs.txt"), Typeflag: tar.TypeReg}},
		"dot-dot":                {{Name: "../escape.txt", Typeflag: tar.TypeReg}},
		"dot-dot inside":         {{Name: "a/../../escape.txt", Typeflag: tar.TypeReg}},
		"link climbing out":      {{Name: "a/up", Typeflag: tar.TypeSymlink, Linkname: "../../x"}},
		"write through a link":   {{Name: "dir", Typeflag: tar.TypeSymlink, Linkname: outside}, {Name: "dir/planted.txt", Typeflag: tar.TypeReg}},
		"write through an inner": {{Name: "real/", Typeflag: tar.TypeDir}, {Name: "alias", Typeflag: tar.TypeSymlink, Linkname: "real"}, {Name: "alias/x.txt", Typeflag: tar.TypeReg}},
		"below a file":           {{Name: "f", Typeflag: tar.TypeReg}, {Name: "f/x", Typeflag: tar.TypeReg}},
		"file over a folder":     {{Name: "d/", Typeflag: tar.TypeDir}, {Name: "d", Typeflag: tar.TypeReg}},
		"hard link":              {{Name: "f", Typeflag: tar.TypeReg}, {Name: "h", Typeflag: tar.TypeLink, Linkname: "f"}},
		"device":                 {{Name: "dev", Typeflag: tar.TypeChar}},
		"fifo":                   {{Name: "fifo", Typeflag: tar.TypeFifo}},
		"file as the root":       {{Name: ".", Typeflag: tar.TypeReg}},
		"empty name":             {{Name: "", Typeflag: tar.TypeReg}},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			tw := tar.NewWriter(&buf)
			for _, hdr := range entries {
				hdr.Mode, hdr.Format = 0o644, tar.FormatPAX
				require.NoError(t, tw.WriteHeader(hdr))
			}
			require.NoError(t, tw.Close())
			_, err := unpack(t, folder(t), buf.Bytes(), Limits{MaxBytes: 1 << 20, MaxEntries: 10, InsideLinksOnly: true})
			var unsafe *UnsafeEntryError
			assert.ErrorAs(t, err, &unsafe)
			left, _ := os.ReadDir(outside)
			assert.Empty(t, left, "nothing is written outside")
		})
	}
}

func TestEmptyRemovesWhatTheUserShut(t *testing.T) {
	dir := folder(t)
	write(t, filepath.Join(dir, "a", "b", "c.txt"), "x", 0o000)
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "a", "root")))
	give(t, dir)
	require.NoError(t, os.Chmod(filepath.Join(dir, "a", "b"), 0o000))
	require.NoError(t, os.Chmod(filepath.Join(dir, "a"), 0o500))
	require.NoError(t, jailUser.Empty(dir))
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, left)
	_, err = os.Stat("/usr")
	assert.NoError(t, err, "a link is removed, not what it leads to")
}

// tarWith is an archive of one small file under each name.
func tarWith(t *testing.T, names ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range names {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: 1, Format: tar.FormatPAX}))
		_, err := tw.Write([]byte("x"))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	return buf.Bytes()
}

func TestRemoveAllNeverFollowsALink(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "kept.txt"), "kept", 0o644)
	dir := folder(t)
	write(t, filepath.Join(dir, "shut", "f"), "x", 0o000)
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "shut", "out")))
	require.NoError(t, os.Chmod(filepath.Join(dir, "shut"), 0o500))
	require.NoError(t, RemoveAll(dir))
	_, err := os.Lstat(dir)
	assert.True(t, os.IsNotExist(err))
	body, err := os.ReadFile(filepath.Join(outside, "kept.txt"))
	require.NoError(t, err)
	assert.Equal(t, "kept", string(body))
}
