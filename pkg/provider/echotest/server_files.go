package echotest

import (
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// maxFile is the largest file the server takes.
const maxFile = 64 << 20

// The file routes take an absolute path inside the instance, which must lie
// in its working folder; os.Root keeps every access inside the folder,
// whatever symbolic links commands made.

// spot is a path of an instance, opened: the instance's folder, and the
// path's name in it.
type spot struct {
	root *os.Root
	name string // relative to root
	path string // as the instance sees it
}

// inFolder hands h the spot the request's path names, or refuses a path
// outside the working folder.
func inFolder(h func(http.ResponseWriter, *http.Request, spot)) func(http.ResponseWriter, *http.Request, *box) {
	return func(w http.ResponseWriter, r *http.Request, b *box) {
		p := path.Clean(r.URL.Query().Get("path"))
		name, inside := strings.CutPrefix(p, b.WorkDir+"/")
		switch {
		case p == b.WorkDir:
			name = "."
		case !inside:
			refuse(w, http.StatusForbidden, codeOutside, p+" is not in "+b.WorkDir)
			return
		}
		root, err := os.OpenRoot(b.root)
		if err != nil {
			refuse(w, http.StatusNotFound, codeNoInstance, "no instance "+b.ID)
			return
		}
		defer root.Close()
		h(w, r, spot{root: root, name: name, path: p})
	}
}

func stat(w http.ResponseWriter, _ *http.Request, at spot) {
	info, err := at.root.Stat(at.name)
	if err != nil {
		refuseFile(w, err)
		return
	}
	writeJSON(w, http.StatusOK, entryOf(at.path, info))
}

func list(w http.ResponseWriter, r *http.Request, at spot) {
	limit, err := strconv.Atoi(r.URL.Query().Get("limit"))
	if err != nil || limit <= 0 {
		refuse(w, http.StatusBadRequest, codeBadRequest, "limit must be a positive number")
		return
	}
	dir, err := at.root.Open(at.name)
	if err != nil {
		refuseFile(w, err)
		return
	}
	defer dir.Close()
	found, err := dir.ReadDir(limit)
	if err != nil && !errors.Is(err, io.EOF) {
		refuseFile(w, err)
		return
	}
	l := listing{Entries: []entry{}}
	for _, e := range found {
		if info, err := e.Info(); err == nil {
			l.Entries = append(l.Entries, entryOf(path.Join(at.path, e.Name()), info))
		}
	}
	writeJSON(w, http.StatusOK, l)
}

func read(w http.ResponseWriter, _ *http.Request, at spot) {
	f, err := at.root.Open(at.name)
	if err != nil {
		refuseFile(w, err)
		return
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || info.IsDir() {
		refuse(w, http.StatusBadRequest, codeBadRequest, "not a file")
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	_, _ = io.Copy(w, f)
}

// write writes a file and the folders it needs, owned by whom commands
// run as, so that they can change them.
func write(w http.ResponseWriter, r *http.Request, at spot) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFile))
	if err != nil {
		refuse(w, http.StatusRequestEntityTooLarge, codeBadRequest, err.Error())
		return
	}
	uid, gid := bubblewrap.Jail{}.User()
	var made []string
	for dir := path.Dir(at.name); dir != "."; dir = path.Dir(dir) {
		made = append(made, dir)
	}
	if err := at.root.MkdirAll(path.Dir(at.name), 0o755); err != nil {
		refuseFile(w, err)
		return
	}
	if err := at.root.WriteFile(at.name, data, 0o644); err != nil {
		refuseFile(w, err)
		return
	}
	for _, p := range append(made, at.name) {
		if err := at.root.Lchown(p, uid, gid); err != nil {
			refuseFile(w, err)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func remove(w http.ResponseWriter, _ *http.Request, at spot) {
	if err := at.root.Remove(at.name); err != nil {
		refuseFile(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func entryOf(p string, info fs.FileInfo) entry {
	return entry{Path: p, Dir: info.IsDir(), Size: info.Size(), ModifiedAt: info.ModTime()}
}

// refuseFile answers a failed file operation: missing (a path through a
// file included), leading out of the folder, or refused.
func refuseFile(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		refuse(w, http.StatusNotFound, codeNoFile, err.Error())
	case jailfs.IsEscape(err):
		refuse(w, http.StatusForbidden, codeOutside, err.Error())
	default:
		refuse(w, http.StatusConflict, codeFailed, err.Error())
	}
}
