package e2btest

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// entry is an EntryInfo (packages/envd/spec/filesystem/filesystem.proto)
// as the JSON codec writes it: int64 as a string, zero values left out.
func entry(path string, info os.FileInfo) map[string]any {
	e := map[string]any{"name": info.Name(), "path": path, "type": "FILE_TYPE_FILE",
		"mode": uint32(info.Mode().Perm()), "permissions": info.Mode().String(),
		"modifiedTime": info.ModTime().UTC().Format(time.RFC3339Nano)}
	if info.IsDir() {
		e["type"] = "FILE_TYPE_DIRECTORY"
	}
	if info.Size() != 0 {
		e["size"] = strconv.FormatInt(info.Size(), 10)
	}
	return e
}

type pathRequest struct {
	Path  string `json:"path"`
	Depth uint32 `json:"depth"`
}

// stat serves Filesystem/Stat: not_found for a path that does not exist,
// internal for other failures, a path through a file among them
// (entryInfo in packages/envd/internal/services/filesystem/utils.go).
func (b *sandbox) stat(req pathRequest) (any, error) {
	p, err := b.resolve(req.Path)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(p)
	switch {
	case os.IsNotExist(err):
		return nil, errorf("not_found", "file not found: %s", err)
	case err != nil:
		return nil, errorf("internal", "error getting file info: %s", err)
	}
	return map[string]any{"entry": entry(p, info)}, nil
}

// listDir serves Filesystem/ListDir at depth 1 (dir.go).
func (b *sandbox) listDir(req pathRequest) (any, error) {
	p, err := b.resolve(req.Path)
	if err != nil {
		return nil, err
	}
	resolved, err := filepath.EvalSymlinks(p)
	switch {
	case os.IsNotExist(err):
		return nil, errorf("not_found", "path not found: %s", err)
	case err != nil:
		return nil, errorf("internal", "error resolving symlink: %s", err)
	}
	if info, err := os.Stat(resolved); err != nil || !info.IsDir() {
		return nil, errorf("invalid_argument", "path is not a directory: %s", p)
	}
	names, err := os.ReadDir(resolved)
	if err != nil {
		return nil, errorf("internal", "error reading directory: %s", err)
	}
	entries := []any{}
	for _, d := range names {
		info, err := d.Info()
		if err != nil {
			continue
		}
		entries = append(entries, entry(filepath.Join(p, d.Name()), info))
	}
	return map[string]any{"entries": entries}, nil
}

// remove serves Filesystem/Remove: the whole tree (os.RemoveAll, remove.go).
func (b *sandbox) remove(req pathRequest) (any, error) {
	p, err := b.resolve(req.Path)
	if err != nil {
		return nil, err
	}
	if err := os.RemoveAll(p); err != nil {
		return nil, errorf("internal", "error removing file or directory: %s", err)
	}
	return struct{}{}, nil
}

// files serves GET and POST /files (envd.yaml; download.go and upload.go
// in packages/envd/internal/api): errors as {"code", "message"}.
func (s *Server) files(w http.ResponseWriter, r *http.Request, b *sandbox) {
	p, err := b.resolve(r.URL.Query().Get("path"))
	if err != nil {
		apiError(w, http.StatusForbidden, "%s", err)
		return
	}
	switch r.Method {
	case http.MethodGet:
		f, err := os.Open(p)
		if os.IsNotExist(err) {
			apiError(w, http.StatusNotFound, "path '%s' does not exist", p)
			return
		}
		if err != nil {
			apiError(w, http.StatusInternalServerError, "error opening file '%s': %s", p, err)
			return
		}
		defer f.Close()
		if info, err := f.Stat(); err == nil && info.IsDir() {
			apiError(w, http.StatusBadRequest, "path '%s' is a directory", p)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = io.Copy(w, f)
	case http.MethodPost:
		if ct := r.Header.Get("Content-Type"); ct != "application/octet-stream" {
			apiError(w, http.StatusBadRequest, "unsupported content type: %s, expected multipart/form-data or application/octet-stream", ct)
			return
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			apiError(w, http.StatusInternalServerError, "error ensuring directories: %s", err)
			return
		}
		f, err := os.Create(p)
		if err == nil {
			_, err = io.Copy(f, r.Body)
			err = errors.Join(err, f.Close())
		}
		if err != nil {
			apiError(w, http.StatusInternalServerError, "error writing file '%s': %s", p, err)
			return
		}
		info, _ := os.Stat(p)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode([]any{map[string]any{"path": p, "name": info.Name(), "type": "file"}})
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}
