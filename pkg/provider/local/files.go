package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/jailfs"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// listChunk is how many entries ListFiles reads from a directory at a time.
const listChunk = 1000

// Files are read and written on the host through the door (jailfs): an
// os.Root on the instance's folder, as the instance's user. No path, links
// included, leads out of it, and nothing is done the user could not do.

// ListFiles lists up to limit of a directory's entries, by name. It reads
// the directory a chunk at a time and stops at the limit: of a larger one,
// it lists those the file system gives first.
func (c *client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	const op = "list files"
	var files []provider.FileInfo
	err := c.inRoot(op, inst, dir, func(root *os.Root, p, rel string) error {
		f, err := root.Open(rel)
		if err != nil {
			return fileError(op, p, err)
		}
		defer f.Close()
		files, err = readDir(op, f, p, limit)
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}

// readDir reads up to limit entries of the open folder f, whose sandbox
// path is p.
func readDir(op string, f *os.File, p string, limit int) ([]provider.FileInfo, error) {
	var files []provider.FileInfo
	for len(files) < limit {
		entries, err := f.ReadDir(min(limit-len(files), listChunk))
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			files = append(files, fileInfo(path.Join(p, e.Name()), info))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fileError(op, p, err)
		}
	}
	return files, nil
}

// Stat describes one path; a symlink leading out of the instance is
// described as itself.
func (c *client) Stat(ctx context.Context, inst provider.Instance, name string) (provider.FileInfo, error) {
	const op = "stat"
	var described provider.FileInfo
	err := c.inRoot(op, inst, name, func(root *os.Root, p, rel string) error {
		info, err := root.Stat(rel)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			if linkInfo, lerr := root.Lstat(rel); lerr == nil {
				info, err = linkInfo, nil
			}
		}
		if errors.Is(err, syscall.ENOTDIR) {
			err = fs.ErrNotExist // a parent is a file: no such path
		}
		if err != nil {
			return fileError(op, p, err)
		}
		described = fileInfo(p, info)
		return nil
	})
	return described, err
}

// OpenFile opens a regular file to read.
func (c *client) OpenFile(ctx context.Context, inst provider.Instance, name string) (io.ReadCloser, error) {
	const op = "read file"
	var stream io.ReadCloser
	err := c.inRoot(op, inst, name, func(root *os.Root, p, rel string) error {
		// Non-blocking: a FIFO a command made must not hang the server.
		f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return fileError(op, p, err)
		}
		if err := regular(f); err != nil {
			f.Close()
			return fileError(op, p, err)
		}
		stream = provider.NewStream(f, func(err error) error { return fileError(op, p, err) }, nil)
		return nil
	})
	return stream, err
}

// WriteFile writes a file, making its parent directories: the door makes
// them as the user commands run as, whose they are.
func (c *client) WriteFile(ctx context.Context, inst provider.Instance, name string, data []byte) error {
	const op = "write file"
	return c.inRoot(op, inst, name, func(root *os.Root, p, rel string) error {
		if rel == "." {
			return fileError(op, p, errors.New("is a directory"))
		}
		if err := root.MkdirAll(path.Dir(rel), 0o755); err != nil {
			return fileError(op, p, err)
		}
		f, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK, 0o644)
		if err != nil {
			return fileError(op, p, err)
		}
		err = regular(f)
		if err == nil {
			_, err = f.Write(data)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fileError(op, p, err)
		}
		return nil
	})
}

// RemoveFile removes a file or an empty directory.
func (c *client) RemoveFile(ctx context.Context, inst provider.Instance, name string) error {
	const op = "remove file"
	return c.inRoot(op, inst, name, func(root *os.Root, p, rel string) error {
		if rel == "." {
			return fileError(op, p, errors.New("the working directory cannot be removed"))
		}
		if err := root.Remove(rel); err != nil {
			return fileError(op, p, err)
		}
		return nil
	})
}

// inRoot resolves name, and calls use with the instance's folder opened
// through the door, p the clean sandbox path and rel the same path
// relative to the folder. Its disk stays mounted while use runs, and then
// for as long as what use opened stays open.
func (c *client) inRoot(op string, inst provider.Instance, name string, use func(root *os.Root, p, rel string) error) error {
	if _, err := c.folder(op, inst); err != nil {
		return err
	}
	p, rel, err := sandboxPath(name)
	if err != nil {
		return provider.Errorf(provider.ErrPath, providerName, op, "%v", err)
	}
	user, dir, done, err := c.door(op, inst)
	if err != nil {
		return err
	}
	defer done()
	err = user.Open(dir, func(root *os.Root) error { return use(root, p, rel) })
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == dir {
		return gone(op, inst.ID) // the folder itself could not be opened
	}
	return err
}

// sandboxPath resolves name, absolute or relative to the working
// directory, to a clean path that must lie within it.
func sandboxPath(name string) (p, rel string, err error) {
	if p, rel, ok := jailfs.Inside(workDir, name); ok {
		return p, rel, nil
	}
	return "", "", fmt.Errorf("%s is outside %s: only files under %s can be reached", name, workDir, workDir)
}

// regular refuses anything but a regular file (directories, FIFOs, sockets).
func regular(f *os.File) error {
	info, err := f.Stat()
	switch {
	case err != nil:
		return err
	case info.IsDir():
		return errors.New("is a directory")
	case !info.Mode().IsRegular():
		return errors.New("is not a regular file")
	}
	return nil
}

func fileInfo(p string, info fs.FileInfo) provider.FileInfo {
	return provider.FileInfo{Path: p, Dir: info.IsDir(), Size: info.Size(), ModifiedAt: info.ModTime()}
}

// fileError words a failed file operation with the sandbox path, never the
// host's.
func fileError(op, p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return provider.Errorf(provider.ErrNotFound, providerName, op, "%s does not exist", p)
	}
	for pathErr := (*fs.PathError)(nil); errors.As(err, &pathErr); {
		err = pathErr.Err
	}
	if jailfs.IsEscape(err) {
		return provider.Errorf(provider.ErrPath, providerName, op, "%s leads out of %s through a symbolic link", p, workDir)
	}
	return provider.Errorf(provider.ErrFailed, providerName, op, "%s: %v", p, err)
}
