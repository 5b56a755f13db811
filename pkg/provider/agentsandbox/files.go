package agentsandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// sandboxd's Filesystem REST API (spec/filesystem/v1/filesystem.yaml,
// pkg/server/filesystem.go): GET /v1/files/{path} streams a file or lists
// a folder, PUT writes a file (its parents made), DELETE removes a file or
// an empty folder. Every path is under its root, the working folder here.

// fileEntry is a FileEntry of a DirectoryListing.
type fileEntry struct {
	Name       string `json:"name"`
	Size       int64  `json:"size"`
	Type       string `json:"type"`
	ModifiedAt string `json:"modified_at"`
}

// restError is sandboxd's APIError body.
type restError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// filesRefusal sorts sandboxd's error answers: NOT_FOUND, and a path
// running through a file (os.Stat's "not a directory", answered as
// INTERNAL) are not found; PERMISSION_DENIED for a path out of the root
// leads out of the sandbox's files.
func filesRefusal(op string, a provider.Answer) error {
	var e restError
	msg := provider.StatusWords(a)
	if json.Unmarshal(a.Body, &e) == nil && e.Message != "" {
		msg = fmt.Sprintf("%d %s: %s", a.Status, e.Code, e.Message)
	}
	switch {
	case a.Status == http.StatusNotFound, strings.Contains(e.Message, "not a directory"):
		return failure(provider.ErrNotFound, op, "%s", msg)
	case a.Status == http.StatusForbidden && strings.Contains(e.Message, "outside sandbox root"):
		return failure(provider.ErrPath, op, "%s", msg)
	}
	return failure(provider.StatusKind(a.Status), op, "%s", msg)
}

// filesURL is the REST API's URL of an instance's path, which must lie
// in its working folder (sandboxd's root).
func filesURL(op string, inst provider.Instance, p string) (string, error) {
	if !path.IsAbs(p) {
		return "", failure(provider.ErrPath, op, "%s is not an absolute path", p)
	}
	root := inst.WorkDir
	clean := path.Clean(p)
	var rel string
	switch {
	case clean == root:
	case strings.HasPrefix(clean, root+"/"):
		rel = strings.TrimPrefix(clean, root+"/")
	default:
		return "", failure(provider.ErrPath, op, "%s is outside the working folder %s, the only one sandboxd serves", p, root)
	}
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		parts[i] = url.PathEscape(part)
	}
	return "http://sandboxd/v1/files/" + strings.Join(parts, "/"), nil
}

// files sends one call to the instance's REST API.
func (c *Client) files(ctx context.Context, inst provider.Instance, k provider.Call, p string) (provider.Answer, error) {
	u, err := filesURL(k.Op, inst, p)
	if err != nil {
		return provider.Answer{}, err
	}
	pc, err := c.pod(inst)
	if err != nil {
		return provider.Answer{}, err
	}
	k.URL = u
	caller := provider.Caller{Provider: providerName, HTTP: pc.files, Timeout: requestTimeout, Refused: filesRefusal}
	a, err := caller.Send(ctx, k)
	return a, pc.dialRefusal(err)
}

// health asks sandboxd whether it serves (GET /v1/health).
func (c *Client) health(ctx context.Context, op string, inst provider.Instance) error {
	pc, err := c.pod(inst)
	if err != nil {
		return err
	}
	caller := provider.Caller{Provider: providerName, HTTP: pc.files, Timeout: 5 * time.Second}
	_, err = caller.Send(ctx, provider.Call{Op: op, Method: http.MethodGet, URL: "http://sandboxd/v1/health"})
	return pc.dialRefusal(err)
}

// isListing says whether an answer of GET /v1/files is a folder's
// listing (JSON) rather than a file (application/octet-stream).
func isListing(h http.Header) bool {
	t, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return t == "application/json"
}

// Stat reads the path's answer head: a folder answers its listing, a
// file its content with its length and time (http.ServeContent).
func (c *Client) Stat(ctx context.Context, inst provider.Instance, p string) (provider.FileInfo, error) {
	a, err := c.files(ctx, inst, provider.Call{Op: "stat", Method: http.MethodGet, Accept: "*/*", Stream: true}, p)
	if err != nil {
		return provider.FileInfo{}, err
	}
	_ = a.Stream.Close()
	info := provider.FileInfo{Path: path.Clean(p), Dir: isListing(a.Header)}
	if !info.Dir {
		info.Size, _ = strconv.ParseInt(a.Header.Get("Content-Length"), 10, 64)
		info.ModifiedAt, _ = http.ParseTime(a.Header.Get("Last-Modified"))
	}
	return info, nil
}

// ListFiles reads a folder's listing, no further than limit entries.
func (c *Client) ListFiles(ctx context.Context, inst provider.Instance, dir string, limit int) ([]provider.FileInfo, error) {
	const op = "list files"
	a, err := c.files(ctx, inst, provider.Call{Op: op, Method: http.MethodGet, Accept: "*/*", Stream: true}, dir)
	if err != nil {
		return nil, err
	}
	defer a.Stream.Close()
	if !isListing(a.Header) {
		return nil, failure(provider.ErrFailed, op, "%s is a file, not a folder", dir)
	}
	entries, err := provider.DecodeArray[fileEntry](a.Stream, "entries", limit)
	if err != nil {
		return nil, failure(provider.ErrFailed, op, "malformed listing: %s", err)
	}
	base := path.Clean(dir)
	out := make([]provider.FileInfo, 0, len(entries))
	for _, e := range entries {
		at, _ := time.Parse(time.RFC3339, e.ModifiedAt)
		out = append(out, provider.FileInfo{Path: path.Join(base, e.Name), Dir: e.Type == "directory", Size: e.Size, ModifiedAt: at})
	}
	return out, nil
}

// OpenFile streams a file; a folder is refused.
func (c *Client) OpenFile(ctx context.Context, inst provider.Instance, p string) (io.ReadCloser, error) {
	const op = "read file"
	a, err := c.files(ctx, inst, provider.Call{Op: op, Method: http.MethodGet, Accept: "*/*", Stream: true, Timeout: -1}, p)
	if err != nil {
		return nil, err
	}
	if isListing(a.Header) {
		_ = a.Stream.Close()
		return nil, failure(provider.ErrFailed, op, "%s is a folder", p)
	}
	return a.Stream, nil
}

// WriteFile writes the file whole (PUT, the raw body); sandboxd makes its
// parents and replaces it atomically.
func (c *Client) WriteFile(ctx context.Context, inst provider.Instance, p string, data []byte) error {
	_, err := c.files(ctx, inst, provider.Call{Op: "write file", Method: http.MethodPut, Body: bytes.NewReader(data),
		ContentType: "application/octet-stream"}, p)
	return err
}

// RemoveFile removes a file or an empty folder (DELETE without
// recursive: a folder that is not empty is refused, 409).
func (c *Client) RemoveFile(ctx context.Context, inst provider.Instance, p string) error {
	_, err := c.files(ctx, inst, provider.Call{Op: "remove file", Method: http.MethodDelete}, p)
	return err
}
