package daytona

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"path"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// fileEntry is the toolbox's FileInfo.
type fileEntry struct {
	Name       string `json:"name"`
	Size       int64  `json:"size"`
	IsDir      bool   `json:"isDir"`
	ModifiedAt string `json:"modifiedAt"` // RFC 3339
	ModTime    string `json:"modTime"`    // Go's time.String(): the only date older daemons give
}

func (e fileEntry) info(p string) provider.FileInfo {
	return provider.FileInfo{Path: p, Dir: e.IsDir, Size: e.Size, ModifiedAt: e.modified()}
}

func (e fileEntry) modified() time.Time {
	if t, err := time.Parse(time.RFC3339Nano, e.ModifiedAt); err == nil {
		return t
	}
	if t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", e.ModTime); err == nil {
		return t
	}
	return time.Time{}
}

// ListFiles lists up to limit of a directory's entries, decoding no more
// of the toolbox's answer than that.
func (c *Client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	const op = "list files"
	dir = inPath(inst, dir)
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodGet, path: "/files", query: url.Values{"path": {dir}}, stream: true})
	if err != nil {
		return nil, err
	}
	if ans.Status != http.StatusOK {
		return nil, fileError(op, dir, ans)
	}
	defer ans.Stream.Close()
	entries, err := provider.DecodeArray[fileEntry](ans.Stream, "", limit)
	if err != nil {
		return nil, failure(provider.ErrFailed, op, "%s: reading the list: %s", dir, err)
	}
	infos := make([]provider.FileInfo, 0, len(entries))
	for _, e := range entries {
		infos = append(infos, e.info(path.Join(dir, e.Name)))
	}
	return infos, nil
}

// Stat describes one path.
func (c *Client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	const op = "stat"
	p = inPath(inst, p)
	ans, err := c.files(ctx, inst, op, http.MethodGet, "/info", url.Values{"path": {p}})
	if err != nil {
		return provider.FileInfo{}, err
	}
	if ans.Status == http.StatusBadRequest {
		// The daemon's bare 400 for a path it cannot look up, as one
		// running through a file.
		return provider.FileInfo{}, failure(provider.ErrNotFound, op, "%s: %s", p, describe(ans))
	}
	if ans.Status != http.StatusOK {
		return provider.FileInfo{}, fileError(op, p, ans)
	}
	var e fileEntry
	if err := json.Unmarshal(ans.Body, &e); err != nil {
		return provider.FileInfo{}, failure(provider.ErrFailed, op, "%s: the answer is not a file's details: %s", p, string(ans.Body))
	}
	return e.info(p), nil
}

// OpenFile downloads a file as it arrives.
func (c *Client) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	const op = "read file"
	p = inPath(inst, p)
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodGet, path: "/files/download", query: url.Values{"path": {p}}, stream: true})
	if err != nil {
		return nil, err
	}
	if ans.Status != http.StatusOK {
		return nil, fileError(op, p, ans)
	}
	return ans.Stream, nil
}

// WriteFile uploads a file. The daemon makes missing parent folders itself;
// one that does not (older daemons) refuses the upload, and then the parent
// is made and the upload sent again.
func (c *Client) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	const op = "write file"
	p = inPath(inst, p)
	body, contentType := multipartFile(path.Base(p), data)
	upload := toolboxCall{op: op, method: http.MethodPost, path: "/files/upload", query: url.Values{"path": {p}}, body: body, contentType: contentType}
	ans, err := c.toolbox(ctx, inst, upload)
	if err != nil {
		return err
	}
	if ans.Status == http.StatusBadRequest {
		if err := c.makeFolder(ctx, inst, op, path.Dir(p)); err != nil {
			return err
		}
		if ans, err = c.toolbox(ctx, inst, upload); err != nil {
			return err
		}
	}
	if ans.Status < 200 || ans.Status >= 300 {
		return fileError(op, p, ans)
	}
	return nil
}

func (c *Client) makeFolder(ctx context.Context, inst provider.Instance, op, dir string) error {
	ans, err := c.files(ctx, inst, op, http.MethodPost, "/folder", url.Values{"path": {dir}, "mode": {"0755"}})
	if err != nil {
		return err
	}
	if ans.Status < 200 || ans.Status >= 300 {
		return fileError(op, dir, ans)
	}
	return nil
}

// RemoveFile removes a file or an empty directory. The daemon removes a
// directory only when told to recurse, so an empty one is checked first.
func (c *Client) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	const op = "remove file"
	p = inPath(inst, p)
	ans, err := c.files(ctx, inst, op, http.MethodDelete, "", url.Values{"path": {p}})
	if err != nil {
		return err
	}
	switch {
	case ans.Status >= 200 && ans.Status < 300:
		return nil
	case ans.Status != http.StatusBadRequest:
		return fileError(op, p, ans)
	}
	info, err := c.Stat(ctx, inst, p)
	if err != nil || !info.Dir {
		return fileError(op, p, ans)
	}
	entries, err := c.ListFiles(ctx, inst, p, 1)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return failure(provider.ErrFailed, op, "%s: the directory is not empty", p)
	}
	if ans, err = c.files(ctx, inst, op, http.MethodDelete, "", url.Values{"path": {p}, "recursive": {"true"}}); err != nil {
		return err
	}
	if ans.Status < 200 || ans.Status >= 300 {
		return fileError(op, p, ans)
	}
	return nil
}

// files calls one of the toolbox's /files endpoints.
func (c *Client) files(ctx context.Context, inst provider.Instance, op, method, sub string, query url.Values) (answer, error) {
	return c.toolbox(ctx, inst, toolboxCall{op: op, method: method, path: "/files" + sub, query: query})
}

// inPath makes p absolute in the sandbox: relative paths resolve in the work dir.
func inPath(inst provider.Instance, p string) string {
	if !path.IsAbs(p) {
		p = path.Join(inst.WorkDir, p)
	}
	return path.Clean(p)
}

// multipartFile is an upload body with the file in the field "file".
func multipartFile(name string, data []byte) ([]byte, string) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("file", name) // writes to a buffer cannot fail
	_, _ = part.Write(data)
	_ = w.Close()
	return buf.Bytes(), w.FormDataContentType()
}
