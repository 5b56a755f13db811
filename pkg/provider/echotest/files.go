package echotest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/auxilia/sandboxes/pkg/provider"
)

func pathQuery(p string) url.Values { return url.Values{"path": {p}} }

// ListFiles lists up to limit of a folder's entries: the server stops there.
func (c *client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	q := pathQuery(dir)
	q.Set("limit", strconv.Itoa(limit))
	var l listing
	if err := c.caller.JSON(ctx, c.call("list files", http.MethodGet, instancePath(inst.ID, "/list"), q, nil), &l); err != nil {
		return nil, err
	}
	infos := make([]provider.FileInfo, 0, len(l.Entries))
	for _, e := range l.Entries {
		infos = append(infos, e.provider())
	}
	return infos, nil
}

// Stat describes one path.
func (c *client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	var e entry
	err := c.caller.JSON(ctx, c.call("stat", http.MethodGet, instancePath(inst.ID, "/stat"), pathQuery(p), nil), &e)
	return e.provider(), err
}

// OpenFile reads a file as the server sends it.
func (c *client) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	k := c.call("read file", http.MethodGet, instancePath(inst.ID, "/content"), pathQuery(p), nil)
	k.Accept, k.Stream = "application/octet-stream", true
	a, err := c.caller.Send(ctx, k)
	if err != nil {
		return nil, err
	}
	return a.Stream, nil
}

// WriteFile writes a file; the server makes its parent folders.
func (c *client) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	k := c.call("write file", http.MethodPut, instancePath(inst.ID, "/content"), pathQuery(p), nil)
	k.Body, k.ContentType = bytes.NewReader(data), "application/octet-stream"
	return c.caller.JSON(ctx, k, nil)
}

// RemoveFile removes a file or an empty folder.
func (c *client) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	return c.caller.JSON(ctx, c.call("remove file", http.MethodDelete, instancePath(inst.ID, "/content"), pathQuery(p), nil), nil)
}
