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

// maxFileBytes is the largest file the gateway takes.
const maxFileBytes = 64 << 20

func pathQuery(p string) url.Values { return url.Values{"path": {p}} }

// ListFiles lists up to limit of a directory's direct entries, decoding no
// more of the gateway's answer than that.
func (c *client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	const op = "list files"
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	list, err := c.send(ctx, call{op: op, method: http.MethodGet, path: sandboxPath(inst.ID, "/files/list"), query: pathQuery(dir)})
	if err != nil {
		return nil, err
	}
	defer list.Close()
	entries, err := provider.DecodeArray[fileInfo](list, "entries", limit)
	if err != nil {
		return nil, provider.Errorf(provider.ErrFailed, providerName, op, "the gateway answered with an unreadable list: %v", err)
	}
	infos := make([]provider.FileInfo, 0, len(entries))
	for _, e := range entries {
		infos = append(infos, fileInfoOf(e))
	}
	return infos, nil
}

// Stat describes one path.
func (c *client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var fi fileInfo
	err := c.callJSON(ctx, call{op: "stat", method: http.MethodGet, path: sandboxPath(inst.ID, "/files/info"), query: pathQuery(p)}, &fi)
	return fileInfoOf(fi), err
}

// OpenFile downloads a file as it arrives, within the call timeout.
func (c *client) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	return c.send(ctx, call{op: "read file", method: http.MethodGet, path: sandboxPath(inst.ID, "/files/content"),
		query: pathQuery(p), accept: "application/octet-stream", timeout: callTimeout})
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
