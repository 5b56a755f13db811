package gateway

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"sort"
	"strconv"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/gateway/wire"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// FileInfo describes a file or directory in a workspace.
type FileInfo = wire.FileInfo

func fileInfoOf(name string, fi fs.FileInfo) FileInfo {
	kind := "other"
	switch {
	case fi.Mode().IsRegular():
		kind = "file"
	case fi.IsDir():
		kind = "directory"
	case fi.Mode()&fs.ModeSymlink != 0:
		kind = "symlink"
	}
	return FileInfo{
		Path: sandboxPath(name), Name: path.Base(sandboxPath(name)), Type: kind, Size: fi.Size(),
		Mode: fmt.Sprintf("%04o", fi.Mode().Perm()), ModifiedAt: fi.ModTime().UTC(),
	}
}

// fileList is the answer of GET files/list.
type fileList = wire.FileList

// inWorkspace resolves the request's sandbox and path, and calls use with
// the workspace opened through the door (jailfs): an os.Root, as the
// sandbox's user. No name, link or ".." leads outside it, and nothing is
// done the sandbox's commands could not do.
func (s *Server) inWorkspace(r *http.Request, use func(root *os.Root, name string) error) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	name, err := workspaceName(r.URL.Query().Get("path"))
	if err != nil {
		return err
	}
	sb.view(true)
	return sb.user.Open(sb.workspace(), func(root *os.Root) error { return use(root, name) })
}

func (s *Server) statFile(w http.ResponseWriter, r *http.Request) error {
	var fi fs.FileInfo
	var name string
	err := s.inWorkspace(r, func(root *os.Root, n string) (err error) {
		name = n
		fi, err = root.Stat(name)
		if err != nil {
			// A link whose target is missing or outside is still an entry: describe the link.
			if li, lerr := root.Lstat(name); lerr == nil {
				fi, err = li, nil
			}
		}
		return err
	})
	if err != nil {
		return fileError(name, err)
	}
	writeJSON(w, http.StatusOK, fileInfoOf(name, fi))
	return nil
}

// openIn opens the request's path in the workspace with flag.
func (s *Server) openIn(r *http.Request, flag int) (f *os.File, name string, err error) {
	err = s.inWorkspace(r, func(root *os.Root, n string) (err error) {
		name = n
		f, err = root.OpenFile(name, flag, 0)
		return err
	})
	if err != nil {
		return nil, name, fileError(name, err)
	}
	return f, name, nil
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) error {
	dir, name, err := s.openIn(r, os.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return err
	}
	defer dir.Close()
	if fi, err := dir.Stat(); err != nil || !fi.IsDir() {
		return failure(http.StatusConflict, auxilia.CodeConflict, sandboxPath(name)+" is not a directory").about(wire.SubjectFile)
	}
	entries, err := dir.ReadDir(maxListEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return fileError(name, err)
	}
	list := fileList{Path: sandboxPath(name), Entries: make([]FileInfo, 0, len(entries))}
	if len(entries) > maxListEntries {
		entries, list.Truncated = entries[:maxListEntries], true
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		list.Entries = append(list.Entries, fileInfoOf(path.Join(name, e.Name()), fi))
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) readFile(w http.ResponseWriter, r *http.Request) error {
	// O_NONBLOCK: opening a FIFO must not hang the request; regular files ignore it.
	f, name, err := s.openIn(r, os.O_RDONLY|syscall.O_NONBLOCK)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileError(name, err)
	}
	switch {
	case fi.IsDir():
		return failure(http.StatusConflict, auxilia.CodeConflict, sandboxPath(name)+" is a directory").about(wire.SubjectDirectory)
	case !fi.Mode().IsRegular():
		return failure(http.StatusConflict, auxilia.CodeConflict, sandboxPath(name)+" is not a regular file").about(wire.SubjectFile)
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	h.Set("Last-Modified", fi.ModTime().UTC().Format(http.TimeFormat))
	w.WriteHeader(http.StatusOK)
	_, _ = io.CopyN(w, f, fi.Size())
	return nil
}

// writeFile replaces a file's content with the body, creating parent directories.
// It writes a temporary file and renames it, so readers never see half a file.
func (s *Server) writeFile(w http.ResponseWriter, r *http.Request) error {
	var failed error
	err := s.inWorkspace(r, func(root *os.Root, name string) error {
		failed = s.writeIn(w, r, root, name)
		return nil
	})
	if err != nil {
		return fileError(".", err)
	}
	return failed
}

// writeIn writes the request's body to name in root: the door makes the
// file, and the folders above it, as the sandbox's user.
func (s *Server) writeIn(w http.ResponseWriter, r *http.Request, root *os.Root, name string) error {
	if name == "." {
		return failure(http.StatusConflict, auxilia.CodeConflict, WorkDir+" is a directory").about(wire.SubjectDirectory)
	}
	if r.ContentLength > maxFileBytes {
		return tooLarge()
	}
	if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return failure(http.StatusConflict, auxilia.CodeConflict, "a parent of "+sandboxPath(name)+" is not a directory").about(wire.SubjectFile)
		}
		return fileError(path.Dir(name), err)
	}
	if fi, err := root.Lstat(name); err == nil && fi.IsDir() {
		return failure(http.StatusConflict, auxilia.CodeConflict, sandboxPath(name)+" is a directory").about(wire.SubjectDirectory)
	}
	tmp := path.Join(path.Dir(name), randomName(".upload-"))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fileError(name, err)
	}
	_, err = io.Copy(f, http.MaxBytesReader(w, r.Body, maxFileBytes))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge()
		}
		return fileError(name, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func tooLarge() error {
	return failure(http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, fmt.Sprintf("files are limited to %d bytes", maxFileBytes))
}

// removeFile removes a file, a link or an empty directory.
func (s *Server) removeFile(w http.ResponseWriter, r *http.Request) error {
	var name string
	err := s.inWorkspace(r, func(root *os.Root, n string) error {
		name = n
		if name == "." {
			return failure(http.StatusUnprocessableEntity, auxilia.CodeInvalid, "the workspace itself cannot be removed").about(wire.SubjectPath)
		}
		return root.Remove(name)
	})
	if err != nil {
		return fileError(name, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
