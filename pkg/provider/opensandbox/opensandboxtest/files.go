package opensandboxtest

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os/user"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// fileInfo is execd's description of a file.
type fileInfo struct {
	Path       string    `json:"path,omitempty"`
	Type       string    `json:"type,omitempty"`
	Size       int64     `json:"size"`
	ModifiedAt time.Time `json:"modified_at,omitempty"`
	CreatedAt  time.Time `json:"created_at,omitempty"`
	Owner      string    `json:"owner"`
	Group      string    `json:"group"`
	Mode       int       `json:"mode"`
}

func describeFile(p string, info fs.FileInfo) fileInfo {
	kind := "other"
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		kind = "symlink"
	case info.IsDir():
		kind = "directory"
	case info.Mode().IsRegular():
		kind = "file"
	}
	owner, group := "", ""
	created := info.ModTime()
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		owner, group = strconv.Itoa(int(st.Uid)), strconv.Itoa(int(st.Gid))
		if u, err := user.LookupId(owner); err == nil {
			owner = u.Username
		}
		if g, err := user.LookupGroupId(group); err == nil {
			group = g.Name
		}
		created = time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	mode, _ := strconv.Atoi(strconv.FormatInt(int64(info.Mode().Perm()), 8))
	return fileInfo{Path: p, Type: kind, Size: info.Size(), ModifiedAt: info.ModTime(), CreatedAt: created,
		Owner: owner, Group: group, Mode: mode}
}

// fileError answers a failed file access as execd does.
func fileError(w http.ResponseWriter, err error) {
	if isNotExist(err) {
		execdError(w, http.StatusNotFound, "FILE_NOT_FOUND", "file not found. "+err.Error())
		return
	}
	execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", "error accessing file: "+err.Error())
}

// pathError words an error about sandbox path p as the OS would for it.
func pathError(op, p string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &fs.PathError{Op: op, Path: p, Err: err}
}

func filesInfo(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	out := map[string]fileInfo{}
	for _, p := range r.URL.Query()["path"] {
		resolved, err := sb.expand(p, nil)
		if err != nil {
			fileError(w, fmt.Errorf("invalid path %s: %w", p, err))
			return
		}
		info, err := root.Lstat(rel(resolved))
		if err != nil {
			err = pathError("lstat", abs(resolved), err)
			if isNotExist(err) {
				err = fmt.Errorf("file not found: %s: %w", p, err)
			}
			fileError(w, err)
			return
		}
		out[p] = describeFile(abs(resolved), info)
	}
	execdJSON(w, http.StatusOK, out)
}

func downloadFile(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	p := r.URL.Query().Get("path")
	if p == "" {
		execdError(w, http.StatusBadRequest, "MISSING_QUERY", "missing query parameter 'path'")
		return
	}
	resolved, err := sb.expand(p, nil)
	if err != nil {
		execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error resolving file path: %s. %v", p, err))
		return
	}
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	f, err := root.Open(rel(resolved))
	if err != nil {
		fileError(w, pathError("open", resolved, err))
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error getting file stat info: %s. %v", resolved, err))
		return
	}
	name := path.Base(abs(resolved))
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(info.Size(), 10))
	if info.IsDir() {
		// execd (components/execd/pkg/web/controller/filesystem_download.go)
		// declares the directory's size, then hands it to http.ServeContent,
		// whose first read fails: on overlay filesystems the answer is 200
		// with that length and no body, the connection cut short.
		if info.Size() == 0 {
			w.Header().Set("Content-Length", "4096") // overlay's directories have a size
		}
		w.WriteHeader(http.StatusOK)
		return
	}
	http.ServeContent(w, r, name, info.ModTime(), f)
}

func listDirectory(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	q := r.URL.Query()
	p := q.Get("path")
	if p == "" {
		execdError(w, http.StatusBadRequest, "MISSING_QUERY", "missing query parameter 'path'")
		return
	}
	depth := 1
	if raw := q.Get("depth"); raw != "" {
		d, err := strconv.Atoi(raw)
		if err != nil || d < 0 {
			execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", "invalid query parameter 'depth': "+raw)
			return
		}
		depth = d
	}
	resolved, err := sb.expand(p, nil)
	if err != nil {
		// execd's own wording, the path lost to a shadowed variable included.
		execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error converting path  to absolute. %v", err))
		return
	}
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	dir := abs(resolved)
	info, err := root.Lstat(rel(dir))
	switch {
	case err != nil:
		fileError(w, pathError("lstat", dir, err))
		return
	case info.Mode()&fs.ModeSymlink != 0:
		execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", "path is a symbolic link, refusing to traverse: "+dir)
		return
	case !info.IsDir():
		execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", "path is not a directory: "+dir)
		return
	}
	entries := []fileInfo{}
	var walk func(dir string, level int) error
	walk = func(dir string, level int) error {
		f, err := root.Open(rel(dir))
		if err != nil {
			return err
		}
		children, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		slices.SortFunc(children, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, c := range children {
			child := path.Join(dir, c.Name())
			info, err := c.Info()
			if err != nil {
				return err
			}
			entries = append(entries, describeFile(child, info))
			if c.IsDir() && level+1 < depth {
				if err := walk(child, level+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if depth > 0 {
		if err := walk(dir, 0); err != nil {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error listing directory %s. %v", dir, err))
			return
		}
	}
	execdJSON(w, http.StatusOK, entries)
}
