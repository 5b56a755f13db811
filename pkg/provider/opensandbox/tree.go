package opensandbox

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

const listTreeOp = "list tree"

// treeDepth is how deep ListTree asks execd to go: as deep as a path can
// be (a path of 4096 bytes has at most 2048 names), so no folder is left out.
const treeDepth = 2048

// ListTree lists every path under root in one call to execd's
// /directories/list with a depth (components/execd/pkg/web/controller/
// filesystem.go, listDirectoryEntries): entries come folder by folder,
// each folder's sorted by name and followed by its own; symbolic links are
// listed, never followed. execd cannot leave a folder out, so a skipped
// folder's entries are read and dropped; when those pass limit too, the
// listing gives up with ErrUnsupported, for a walk that never enters them.
func (c *client) ListTree(ctx context.Context, inst provider.Instance, root, skip string, limit int) ([]string, bool, error) {
	t, err := target(inst, listTreeOp)
	if err != nil {
		return nil, false, err
	}
	if root, err = filePath(inst, listTreeOp, root); err != nil {
		return nil, false, err
	}
	query := url.Values{"path": {root}, "depth": {strconv.Itoa(treeDepth)}}
	body, err := c.open(ctx, c.execd(t, listTreeOp, "GET", "/directories/list", query))
	if err != nil {
		return nil, false, err
	}
	defer body.Close()
	dec := json.NewDecoder(body)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, false, failure(provider.ErrFailed, listTreeOp, "malformed answer: not a list")
	}
	paths := []string{}
	skipped, skipping := 0, ""
	for dec.More() {
		var e fileInfo
		if err := dec.Decode(&e); err != nil {
			return nil, false, failure(provider.ErrFailed, listTreeOp, "malformed answer: %s", err)
		}
		switch {
		case skipping != "" && strings.HasPrefix(e.Path, skipping):
			skipped++
		case skip != "" && e.Type == "directory" && lastName(e.Path) == skip:
			skipping, skipped = e.Path+"/", skipped+1
		case len(paths) == limit:
			return paths, true, nil
		default:
			skipping = ""
			paths = append(paths, e.Path)
		}
		if skipped > limit {
			return nil, false, failure(provider.ErrUnsupported, listTreeOp, "more than %d entries in folders named %s", limit, skip)
		}
	}
	return paths, false, nil
}

func lastName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

var _ provider.TreeLister = (*client)(nil)
