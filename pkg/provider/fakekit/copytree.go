package fakekit

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// CopyTree copies a folder with its files, folders and links, keeping
// their modes and owners, as a committed image keeps a container's files.
func CopyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			err = os.MkdirAll(dst, info.Mode().Perm())
		case info.Mode()&fs.ModeSymlink != 0:
			var target string
			if target, err = os.Readlink(p); err == nil {
				err = os.Symlink(target, dst)
			}
		case info.Mode().IsRegular():
			err = copyFile(p, dst, info.Mode().Perm())
		default:
			return nil // devices, sockets and pipes are not files to keep
		}
		if err != nil {
			return err
		}
		if st, ok := ownerOf(info); ok {
			return os.Lchown(dst, st.uid, st.gid)
		}
		return nil
	})
}

func copyFile(from, to string, perm fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ownerOf is who owns a file, where the system says.
func ownerOf(info fs.FileInfo) (owner, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return owner{}, false
	}
	return owner{uid: int(st.Uid), gid: int(st.Gid)}, true
}

type owner struct{ uid, gid int }
