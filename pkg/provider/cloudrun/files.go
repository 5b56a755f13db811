package cloudrun

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// maxFileBytes is the largest file the gateway takes, and so the largest the client reads.
const maxFileBytes = 64 << 20

func pathQuery(p string) url.Values { return url.Values{"path": {p}} }

// ListFiles lists a directory's direct entries.
func (c *client) ListFiles(ctx context.Context, inst provider.Instance, dir string) ([]provider.FileInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var list fileList
	if err := c.callJSON(ctx, call{op: "list files", method: http.MethodGet, path: sandboxPath(inst.ID, "/files/list"),
		query: pathQuery(dir)}, &list); err != nil {
		return nil, err
	}
	infos := make([]provider.FileInfo, 0, len(list.Entries))
	for _, e := range list.Entries {
		infos = append(infos, e.provider())
	}
	return infos, nil
}

// Stat describes one path.
func (c *client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var fi fileInfo
	err := c.callJSON(ctx, call{op: "stat", method: http.MethodGet, path: sandboxPath(inst.ID, "/files/info"), query: pathQuery(p)}, &fi)
	return fi.provider(), err
}

// ReadFile returns a file's bytes.
func (c *client) ReadFile(ctx context.Context, inst provider.Instance, p string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := c.send(ctx, call{op: "read file", method: http.MethodGet, path: sandboxPath(inst.ID, "/files/content"),
		query: pathQuery(p), accept: "application/octet-stream"})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxFileBytes+1))
	if err != nil {
		return nil, transportError(ctx, "read file", err)
	}
	if len(data) > maxFileBytes {
		return nil, provider.Errorf(provider.ErrFailed, providerName, "read file", "%s is larger than %d bytes", p, maxFileBytes)
	}
	return data, nil
}

// WriteFile writes a file; the gateway creates its parent directories.
func (c *client) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	if len(data) > maxFileBytes {
		return provider.Errorf(provider.ErrFailed, providerName, "write file", "%s", fmt.Sprintf("files are limited to %d bytes", maxFileBytes))
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.callJSON(ctx, call{op: "write file", method: http.MethodPut, path: sandboxPath(inst.ID, "/files/content"),
		query: pathQuery(p), body: bytes.NewReader(data), contentType: "application/octet-stream"}, nil)
}

// RemoveFile removes a file or an empty directory.
func (c *client) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	return c.callJSON(ctx, call{op: "remove file", method: http.MethodDelete, path: sandboxPath(inst.ID, "/files"), query: pathQuery(p)}, nil)
}
