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
	"time"
)

// FileInfo describes a file or directory in a workspace.
type FileInfo struct {
	Path       string    `json:"path"`
	Name       string    `json:"name"`
	Type       string    `json:"type"` // file, directory, symlink or other
	Size       int64     `json:"size"`
	Mode       string    `json:"mode"`
	ModifiedAt time.Time `json:"modified_at"`
}

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
type fileList struct {
	Path      string     `json:"path"`
	Entries   []FileInfo `json:"entries"`
	Truncated bool       `json:"truncated"`
}

// openWorkspace resolves the request's sandbox and path, and opens the
// workspace as an os.Root: no name, link or "..", can lead outside it.
func (s *Server) openWorkspace(r *http.Request) (*os.Root, string, error) {
	sb, err := s.lookup(r)
	if err != nil {
		return nil, "", err
	}
	name, err := workspaceName(r.URL.Query().Get("path"))
	if err != nil {
		return nil, "", err
	}
	sb.view(true)
	root, err := os.OpenRoot(sb.workspace())
	if err != nil {
		return nil, "", err
	}
	return root, name, nil
}

func (s *Server) statFile(w http.ResponseWriter, r *http.Request) error {
	root, name, err := s.openWorkspace(r)
	if err != nil {
		return err
	}
	defer root.Close()
	fi, err := root.Stat(name)
	if err != nil {
		// A link whose target is missing or outside is still an entry: describe the link.
		if li, lerr := root.Lstat(name); lerr == nil {
			fi, err = li, nil
		}
	}
	if err != nil {
		return fileError(name, err)
	}
	writeJSON(w, http.StatusOK, fileInfoOf(name, fi))
	return nil
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request) error {
	root, name, err := s.openWorkspace(r)
	if err != nil {
		return err
	}
	defer root.Close()
	dir, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fileError(name, err)
	}
	defer dir.Close()
	if fi, err := dir.Stat(); err != nil || !fi.IsDir() {
		return failure(http.StatusUnprocessableEntity, "not_a_directory", sandboxPath(name)+" is not a directory")
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
	root, name, err := s.openWorkspace(r)
	if err != nil {
		return err
	}
	defer root.Close()
	// O_NONBLOCK: opening a FIFO must not hang the request; regular files ignore it.
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fileError(name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileError(name, err)
	}
	switch {
	case fi.IsDir():
		return failure(http.StatusUnprocessableEntity, "is_a_directory", sandboxPath(name)+" is a directory")
	case !fi.Mode().IsRegular():
		return failure(http.StatusUnprocessableEntity, "not_a_regular_file", sandboxPath(name)+" is not a regular file")
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
	root, name, err := s.openWorkspace(r)
	if err != nil {
		return err
	}
	defer root.Close()
	if name == "." {
		return failure(http.StatusConflict, "is_a_directory", WorkDir+" is a directory")
	}
	if r.ContentLength > maxFileBytes {
		return tooLarge()
	}
	if err := root.MkdirAll(path.Dir(name), 0o755); err != nil {
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return failure(http.StatusConflict, "not_a_directory", "a parent of "+sandboxPath(name)+" is not a directory")
		}
		return fileError(path.Dir(name), err)
	}
	if fi, err := root.Lstat(name); err == nil && fi.IsDir() {
		return failure(http.StatusConflict, "is_a_directory", sandboxPath(name)+" is a directory")
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
	if err == nil {
		err = s.owner.give(root, name)
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
	return failure(http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("files are limited to %d bytes", maxFileBytes))
}

// removeFile removes a file, a link or an empty directory.
func (s *Server) removeFile(w http.ResponseWriter, r *http.Request) error {
	root, name, err := s.openWorkspace(r)
	if err != nil {
		return err
	}
	defer root.Close()
	if name == "." {
		return failure(http.StatusUnprocessableEntity, "path_outside_workspace", "the workspace itself cannot be removed")
	}
	if err := root.Remove(name); err != nil {
		return fileError(name, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
