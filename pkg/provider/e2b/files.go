package e2b

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// entryInfo is a filesystem.EntryInfo (packages/envd/spec/filesystem/filesystem.proto).
type entryInfo struct {
	Name         string    `json:"name"`
	Type         string    `json:"type"`
	Path         string    `json:"path"`
	Size         int64Text `json:"size"`
	ModifiedTime time.Time `json:"modifiedTime"`
}

const fileTypeDirectory = "FILE_TYPE_DIRECTORY"

// int64Text is an int64 as protobuf's JSON writes it: a string (a number read too).
type int64Text int64

func (n *int64Text) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(strings.Trim(string(b), `"`), 10, 64)
	*n = int64Text(v)
	return err
}

func (e entryInfo) fileInfo() provider.FileInfo {
	return provider.FileInfo{Path: e.Path, Dir: e.Type == fileTypeDirectory, Size: int64(e.Size), ModifiedAt: e.ModifiedTime}
}

type entryAnswer struct {
	Entry *entryInfo `json:"entry"`
}

// workDir asks envd where relative paths resolve: a Stat of the empty
// path is of the template's working folder, or of the user's home
// (ExpandAndResolve, packages/envd/internal/permissions/path.go).
func (c *Client) workDir(ctx context.Context, inst provider.Instance) (string, error) {
	info, err := c.stat(ctx, "create", inst, "")
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(info.Path, "/") || !info.Dir {
		return "", failure(provider.ErrFailed, "create", "envd's working folder is %q, not an absolute folder", info.Path)
	}
	return info.Path, nil
}

// Stat describes one path (filesystem.Filesystem/Stat).
func (c *Client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	return c.stat(ctx, "stat", inst, p)
}

func (c *Client) stat(ctx context.Context, op string, inst provider.Instance, p string) (provider.FileInfo, error) {
	var ans entryAnswer
	if err := c.envdOf(inst).unary(ctx, op, "filesystem.Filesystem/Stat", map[string]string{"path": p}, &ans); err != nil {
		return provider.FileInfo{}, throughFile(err)
	}
	if ans.Entry == nil {
		return provider.FileInfo{}, failure(provider.ErrFailed, op, "the answer holds no entry")
	}
	return ans.Entry.fileInfo(), nil
}

// throughFile makes a path that runs through a file not found: envd
// answers it as an internal error, "not a directory" (entryInfo in
// packages/envd/internal/services/filesystem/utils.go).
func throughFile(err error) error {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.Kind == provider.ErrFailed && strings.Contains(pe.Message, "not a directory") {
		return failure(provider.ErrNotFound, pe.Op, "%s", pe.Message)
	}
	return err
}

// ListFiles lists a folder's entries (filesystem.Filesystem/ListDir, depth 1).
func (c *Client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	var ans struct {
		Entries []entryInfo `json:"entries"`
	}
	if err := c.envdOf(inst).unary(ctx, "list files", "filesystem.Filesystem/ListDir", map[string]any{"path": dir, "depth": 1}, &ans); err != nil {
		return nil, throughFile(err)
	}
	out := make([]provider.FileInfo, 0, min(len(ans.Entries), limit))
	for _, e := range ans.Entries {
		if len(out) == limit {
			break
		}
		out = append(out, e.fileInfo())
	}
	return out, nil
}

// OpenFile streams a file (GET /files, envd.yaml).
func (c *Client) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	e := c.envdOf(inst)
	a, err := c.envdCaller.Send(ctx, provider.Call{Op: "read file", Method: http.MethodGet, URL: e.base + "/files?path=" + url.QueryEscape(p),
		Header: e.header(), Accept: "application/octet-stream", Stream: true})
	if err != nil {
		return nil, err
	}
	return a.Stream, nil
}

// WriteFile uploads a file, envd making its parent folders (POST /files,
// the raw body as application/octet-stream).
func (c *Client) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	e := c.envdOf(inst)
	_, err := c.envdCaller.Send(ctx, provider.Call{Op: "write file", Method: http.MethodPost, URL: e.base + "/files?path=" + url.QueryEscape(p),
		Header: e.header(), Body: bytes.NewReader(data), ContentType: "application/octet-stream", Timeout: requestTimeout})
	return err
}

// RemoveFile removes a file or an empty folder. envd's Remove removes a
// whole tree (os.RemoveAll, filesystem/remove.go), so a folder is listed
// first and refused unless empty.
func (c *Client) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	const op = "remove file"
	info, err := c.stat(ctx, op, inst, p)
	if err != nil {
		return err
	}
	if info.Dir {
		entries, err := c.ListFiles(ctx, inst, p, 1)
		if err != nil {
			return err
		}
		if len(entries) > 0 {
			return failure(provider.ErrFailed, op, "%s is a folder that is not empty", p)
		}
	}
	return c.envdOf(inst).unary(ctx, op, "filesystem.Filesystem/Remove", map[string]string{"path": p}, &struct{}{})
}
