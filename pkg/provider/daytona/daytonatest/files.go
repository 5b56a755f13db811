package daytonatest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
)

// resolve maps a path in the sandbox to the host folder holding it and the
// name inside that folder. The fake's sandboxes have files only in WorkDir
// and /tmp; relative paths resolve in WorkDir, as the daemon's do.
func (b sandboxBox) resolve(p string) (root, name string, ok bool) {
	if !path.IsAbs(p) {
		p = path.Join(WorkDir, p)
	}
	p = path.Clean(p)
	for _, m := range []struct{ at, host string }{{WorkDir, b.home}, {"/tmp", b.tmp}} {
		if p == m.at {
			return m.host, ".", true
		}
		if rest, found := strings.CutPrefix(p, m.at+"/"); found {
			return m.host, rest, true
		}
	}
	return "", "", false
}

// open opens the os.Root holding p, which keeps every access inside the
// sandbox's folders whatever symlinks the sandbox made.
func (b sandboxBox) open(p string) (*os.Root, string, error) {
	root, name, ok := b.resolve(p)
	if !ok {
		return nil, "", &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
	}
	r, err := os.OpenRoot(root)
	return r, name, err
}

// statusOf is the daemon's status for a file error: 404, 403 or 400.
func statusOf(err error) int {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return http.StatusNotFound
	case errors.Is(err, fs.ErrPermission):
		return http.StatusForbidden
	default:
		return http.StatusBadRequest
	}
}

// fileInfo is the daemon's FileInfo.
func fileInfo(name string, info fs.FileInfo) map[string]any {
	uid, gid := "0", "0"
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		uid, gid = strconv.FormatUint(uint64(st.Uid), 10), strconv.FormatUint(uint64(st.Gid), 10)
	}
	return map[string]any{
		"name":        name,
		"size":        info.Size(),
		"mode":        info.Mode().String(),
		"modTime":     info.ModTime().String(),
		"modifiedAt":  info.ModTime(),
		"isDir":       info.IsDir(),
		"owner":       uid,
		"group":       gid,
		"permissions": fmt.Sprintf("%04o", info.Mode().Perm()),
	}
}

func listFiles(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	dir := r.URL.Query().Get("path")
	if dir == "" {
		dir = "."
	}
	root, name, err := box.open(dir)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	infos := []map[string]any{}
	for _, e := range entries {
		// The daemon follows symlinks, and leaves out entries it cannot stat.
		info, err := root.Stat(path.Join(name, e.Name()))
		if err != nil {
			continue
		}
		infos = append(infos, fileInfo(e.Name(), info))
	}
	writeJSON(w, http.StatusOK, infos)
}

func getFileInfo(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	p := r.URL.Query().Get("path")
	if p == "" {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	root, name, err := box.open(p)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	writeJSON(w, http.StatusOK, fileInfo(path.Base(path.Clean(p)), info))
}

func downloadFile(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	p := r.URL.Query().Get("path")
	if p == "" {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	root, name, err := box.open(p)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	defer root.Close()
	f, err := root.Open(name)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		bareStatus(w, statusOf(err))
		return
	case info.IsDir():
		bareStatus(w, http.StatusBadRequest) // "path must be a file"
		return
	}
	base := path.Base(path.Clean(p))
	w.Header().Set("Content-Description", "File Transfer")
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="%s"`, base))
	w.Header().Set("Content-Transfer-Encoding", "binary")
	http.ServeContent(w, r, base, info.ModTime(), f)
}

// uploadFile saves the multipart field "file" at path, making its folder
// (mode 0750) as the daemon does, unless Options.UploadNeedsParent.
func (s *Server) uploadFile(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	defer func() { _, _ = io.Copy(io.Discard, r.Body) }()
	p := r.URL.Query().Get("path")
	if p == "" {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	src, _, err := r.FormFile("file")
	if err != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	defer src.Close()
	root, name, err := box.open(p)
	if err != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	defer root.Close()
	if !s.opts.UploadNeedsParent {
		if err := mkdirAllOwned(root, path.Dir(name), 0o750); err != nil {
			bareStatus(w, http.StatusBadRequest)
			return
		}
	}
	dst, err := root.Create(name)
	if err != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err != nil || cerr != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	chownToJailUser(root, name)
	w.WriteHeader(http.StatusOK)
}

func createFolder(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	p := r.URL.Query().Get("path")
	if p == "" {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	perm := os.FileMode(0o755)
	if mode := r.URL.Query().Get("mode"); mode != "" {
		n, err := strconv.ParseUint(mode, 8, 32)
		if err != nil {
			bareStatus(w, http.StatusBadRequest) // "invalid mode format"
			return
		}
		perm = os.FileMode(n)
	}
	root, name, err := box.open(p)
	if err != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	defer root.Close()
	if err := mkdirAllOwned(root, name, perm); err != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusCreated)
}

func deleteFile(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	p := r.URL.Query().Get("path")
	if p == "" {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	root, name, err := box.open(p)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil {
		bareStatus(w, statusOf(err))
		return
	}
	recursive := r.URL.Query().Get("recursive") == "true"
	if info.IsDir() && !recursive {
		bareStatus(w, http.StatusBadRequest) // "cannot delete directory without recursive flag"
		return
	}
	if recursive {
		err = root.RemoveAll(name)
	} else {
		err = root.Remove(name)
	}
	if err != nil {
		bareStatus(w, http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// mkdirAllOwned makes dir and its missing parents, owned by the jail's user
// so that commands can write in them.
func mkdirAllOwned(root *os.Root, dir string, perm os.FileMode) error {
	var missing []string
	for d := path.Clean(dir); d != "." && d != "/"; d = path.Dir(d) {
		if _, err := root.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	if err := root.MkdirAll(dir, perm); err != nil {
		return err
	}
	for _, d := range missing {
		chownToJailUser(root, d)
	}
	return nil
}

// chownToJailUser gives a file made by the fake to the user commands run as.
func chownToJailUser(root *os.Root, name string) {
	uid, gid := bubblewrap.Jail{}.User()
	_ = root.Lchown(name, uid, gid)
}
