package opensandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/textproto"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// fileInfo is execd's description of a file.
type fileInfo struct {
	Path       string    `json:"path"`
	Type       string    `json:"type"` // file, directory, symlink or other
	Size       int64     `json:"size"`
	ModifiedAt time.Time `json:"modified_at"`
}

func (f fileInfo) toProvider() provider.FileInfo {
	return provider.FileInfo{Path: f.Path, Dir: f.Type == "directory", Size: f.Size, ModifiedAt: f.ModifiedAt}
}

// uploadMode is the mode of written files, in execd's octal-digits notation.
const uploadMode = 644

// ListFiles lists up to limit of a directory's direct entries, decoding
// no more of execd's answer than that.
func (c *client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	const op = "list files"
	t, err := target(inst, op)
	if err != nil {
		return nil, err
	}
	dir, err = filePath(inst, op, dir)
	if err != nil {
		return nil, err
	}
	query := url.Values{"path": {dir}, "depth": {"1"}}
	body, err := c.open(ctx, c.execd(t, op, "GET", "/directories/list", query))
	if err != nil {
		return nil, err
	}
	defer body.Close()
	entries, err := provider.DecodeArray[fileInfo](body, "", limit)
	if err != nil {
		return nil, failure(provider.ErrFailed, op, "malformed answer: %s", err)
	}
	out := make([]provider.FileInfo, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.toProvider())
	}
	return out, nil
}

// Stat describes one path.
func (c *client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	const op = "stat"
	t, err := target(inst, op)
	if err != nil {
		return provider.FileInfo{}, err
	}
	if p, err = filePath(inst, op, p); err != nil {
		return provider.FileInfo{}, err
	}
	info, err := c.stat(ctx, t, op, p)
	return info.toProvider(), err
}

// stat describes one absolute path, a path through a file being missing.
func (c *client) stat(ctx context.Context, t execdTarget, op, p string) (fileInfo, error) {
	info, err := c.info(ctx, t, op, p)
	if errors.Is(err, provider.ErrFailed) && strings.Contains(providerMessage(err), "not a directory") {
		// execd answers ENOTDIR, a parent that is a file, as a runtime error.
		return fileInfo{}, failure(provider.ErrNotFound, op, "%s", providerMessage(err))
	}
	return info, err
}

// info asks execd about one absolute path; a symbolic link is described
// itself, not what it points at.
func (c *client) info(ctx context.Context, t execdTarget, op, p string) (fileInfo, error) {
	var infos map[string]fileInfo
	if err := c.do(ctx, c.execd(t, op, "GET", "/files/info", url.Values{"path": {p}}), &infos); err != nil {
		return fileInfo{}, err
	}
	info, ok := infos[p]
	if !ok {
		return fileInfo{}, failure(provider.ErrFailed, op, "the answer does not describe %s", p)
	}
	if info.Path == "" {
		info.Path = p
	}
	return info, nil
}

// OpenFile downloads a file as it arrives. It asks what p is first: the
// download of a directory may answer a length and no body (on overlay
// filesystems), which cannot be told from a file cut short.
func (c *client) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	const op = "read file"
	t, err := target(inst, op)
	if err != nil {
		return nil, err
	}
	if p, err = filePath(inst, op, p); err != nil {
		return nil, err
	}
	info, err := c.stat(ctx, t, op, p)
	switch {
	case err != nil:
		return nil, err
	case info.Type == "directory":
		return nil, failure(provider.ErrFailed, op, "%s is a directory", p)
	}
	r := c.execd(t, op, "GET", "/files/download", url.Values{"path": {p}})
	r.Accept = "*/*"
	return c.open(ctx, r)
}

// WriteFile uploads a file; execd creates its parent directories.
func (c *client) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	const op = "write file"
	t, err := target(inst, op)
	if err != nil {
		return err
	}
	if p, err = filePath(inst, op, p); err != nil {
		return err
	}
	body, contentType, err := uploadBody(p, data)
	if err != nil {
		return failure(provider.ErrFailed, op, "building the upload: %s", err)
	}
	r := c.execd(t, op, "POST", "/files/upload", nil)
	r.Body, r.ContentType = body, contentType
	return c.do(ctx, r, nil)
}

// uploadBody is the multipart form execd reads: a metadata part, which must
// be a file part (execd reads it from the form's files), then the file.
func uploadBody(p string, data []byte) (*bytes.Buffer, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="metadata"; filename="metadata"`)
	h.Set("Content-Type", "application/json")
	meta, err := w.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if err := json.NewEncoder(meta).Encode(map[string]any{"path": p, "mode": uploadMode}); err != nil {
		return nil, "", err
	}
	file, err := w.CreateFormFile("file", path.Base(p))
	if err != nil {
		return nil, "", err
	}
	if _, err := file.Write(data); err != nil {
		return nil, "", err
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return &buf, w.FormDataContentType(), nil
}

// RemoveFile removes a file, a symbolic link or an empty directory. execd
// answers success for a missing file and removes directories recursively,
// so the client looks first. Its file removal follows a link (refusing one
// to a directory, and doing nothing for a dangling one), while its
// directory removal removes the link itself: links go that way.
func (c *client) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	const op = "remove file"
	t, err := target(inst, op)
	if err != nil {
		return err
	}
	if p, err = filePath(inst, op, p); err != nil {
		return err
	}
	info, err := c.info(ctx, t, op, p)
	if err != nil {
		return err
	}
	query := url.Values{"path": {p}}
	switch info.Type {
	case "symlink":
		return c.do(ctx, c.execd(t, op, "DELETE", "/directories", query), nil)
	case "directory":
	default:
		return c.do(ctx, c.execd(t, op, "DELETE", "/files", query), nil)
	}
	entries, err := c.ListFiles(ctx, inst, p, 1)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return failure(provider.ErrFailed, op, "directory %s is not empty", p)
	}
	return c.do(ctx, c.execd(t, op, "DELETE", "/directories", query), nil)
}
