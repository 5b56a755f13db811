package opensandboxtest

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"strconv"
)

// The execd handlers that change files: remove, make directories, upload.

func removeFiles(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	for _, p := range r.URL.Query()["path"] {
		resolved, err := sb.expand(p, nil)
		if err != nil {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error removing file %s. invalid path: %v", p, err))
			return
		}
		info, err := root.Stat(rel(resolved))
		switch {
		case err != nil && isNotExist(err):
			continue // execd removes what is there and says nothing of the rest
		case err != nil:
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error removing file %s. %v", p, err))
			return
		case info.IsDir():
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error removing file %s. path is a directory: %s", p, p))
			return
		}
		if err := root.Remove(rel(resolved)); err != nil {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error removing file %s. failed to remove file: %v", p, err))
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

func removeDirectories(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	for _, p := range r.URL.Query()["path"] {
		resolved, err := sb.expand(p, nil)
		if err != nil {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error resolving directory %s. %v", p, err))
			return
		}
		if rel(resolved) == "." {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error removing directory %s. refusing to remove /", p))
			return
		}
		if err := root.RemoveAll(rel(resolved)); err != nil {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error removing directory %s. %v", p, err))
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

type permission struct {
	Owner string `json:"owner"`
	Group string `json:"group"`
	Mode  int    `json:"mode"`
}

// chmod applies execd's mode, octal digits written as a decimal number (0: leave it).
func chmod(root *os.Root, name string, mode int) error {
	if mode == 0 {
		return nil
	}
	m, err := strconv.ParseUint(strconv.Itoa(mode), 8, 32)
	if err != nil {
		return err
	}
	return root.Chmod(name, fs.FileMode(m))
}

func makeDirectories(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	var req map[string]permission
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", "error parsing request, MAYBE invalid body format. "+err.Error())
		return
	}
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	for requested, perm := range req {
		dir, err := sb.expand(requested, nil)
		if err != nil {
			fileError(w, err)
			return
		}
		if err := root.MkdirAll(rel(dir), 0o777); err != nil {
			fileError(w, pathError("mkdir", abs(dir), err))
			return
		}
		if err := sb.own(root, rel(dir)); err != nil {
			fileError(w, pathError("chown", abs(dir), err))
			return
		}
		if err := chmod(root, rel(dir), perm.Mode); err != nil {
			fileError(w, pathError("chmod", abs(dir), err))
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// uploadFiles reads metadata and file parts in pairs. The metadata must be
// a file part: execd looks for it among the form's files, not its values.
func uploadFiles(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	if err := r.ParseMultipartForm(32 << 20); err != nil || r.MultipartForm == nil {
		execdError(w, http.StatusBadRequest, "INVALID_FILE", "multipart form is empty")
		return
	}
	defer r.MultipartForm.RemoveAll()
	metas, files := r.MultipartForm.File["metadata"], r.MultipartForm.File["file"]
	switch {
	case len(metas) == 0:
		execdError(w, http.StatusBadRequest, "INVALID_FILE_METADATA", "metadata file is missing")
		return
	case len(files) == 0:
		execdError(w, http.StatusBadRequest, "INVALID_FILE_CONTENT", "file is missing")
		return
	case len(metas) != len(files):
		execdError(w, http.StatusBadRequest, "INVALID_FILE", fmt.Sprintf("metadata and file count mismatch: %d vs %d", len(metas), len(files)))
		return
	}
	root, err := openRoot(sb)
	if err != nil {
		fileError(w, err)
		return
	}
	defer root.Close()
	for i := range metas {
		var meta struct {
			Path string `json:"path"`
			permission
		}
		mf, err := metas[i].Open()
		if err != nil {
			execdError(w, http.StatusBadRequest, "INVALID_FILE_METADATA", "error opening metadata file. "+err.Error())
			return
		}
		raw, _ := io.ReadAll(mf)
		mf.Close()
		if err := json.Unmarshal(raw, &meta); err != nil {
			execdError(w, http.StatusBadRequest, "INVALID_FILE_METADATA", "invalid metadata format. "+err.Error())
			return
		}
		if meta.Path == "" {
			execdError(w, http.StatusBadRequest, "INVALID_FILE_METADATA", "metadata path is empty")
			return
		}
		resolved, err := sb.expand(meta.Path, nil)
		if err != nil {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error resolving target path %s. %v", meta.Path, err))
			return
		}
		if msg := store(sb, root, resolved, meta.Mode, files[i]); msg != "" {
			execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", msg)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// store writes one uploaded file as execd does: parent folders first, then
// the file, then its owner and mode. It returns execd's words for a failure.
func store(sb *sandbox, root *os.Root, target string, mode int, part *multipart.FileHeader) string {
	name := rel(target)
	if err := root.MkdirAll(path.Dir(name), 0o777); err != nil {
		return fmt.Sprintf("error creating target directory %s. %v", path.Dir(target), pathError("mkdir", path.Dir(target), err))
	}
	src, err := part.Open()
	if err != nil {
		return fmt.Sprintf("error opening file %s. %v", part.Filename, err)
	}
	defer src.Close()
	dst, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o777)
	if err != nil {
		return fmt.Sprintf("error opening destination file %s. %v", target, pathError("open", target, err))
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Sprintf("error copying file %s. %v", target, err)
	}
	if err := sb.own(root, name); err != nil {
		return fmt.Sprintf("error chmoding file %s. %v", target, err)
	}
	if err := chmod(root, name, mode); err != nil {
		return fmt.Sprintf("error chmoding file %s. %v", target, pathError("chmod", target, err))
	}
	return ""
}
