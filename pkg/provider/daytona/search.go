package daytona

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// ListTree lists every path under root with the daemon's GET /files/search
// and the pattern "*", which every name matches, hidden ones included: the
// daemon walks the folder with Go's filepath.Walk (symlinks not followed,
// a folder it cannot read skipped) and answers each path it visits, root
// first (SearchFiles in Daytona's apps/daemon/pkg/toolbox/fs/search_files.go).
// It takes no limit: the daemon walks the whole tree; of its answer, no
// more than the first limit paths after root are read. A daemon without the route (gin's bare 404) is
// ErrUnsupported. Measured against the walk in docs/benchmarks.md.
//
// grep and edit keep their commands: the daemon's GET /files/find reads a
// file's lines with bufio.Scanner, whose 64 KiB bound ends the file's
// search at a longer line, drops a line's CR, calls binary only a NUL in
// the first 512 bytes, and answers every match of the tree with no limit;
// its POST /files/replace replaces every occurrence and rewrites the file
// even without one, so edit must read the file first all the same, to
// count them (find_in_files.go and replace_in_files.go there).
func (c *Client) ListTree(ctx context.Context, inst provider.Instance, root string, limit int) ([]string, bool, error) {
	const op = "list tree"
	ans, err := c.toolbox(ctx, inst, toolboxCall{op: op, method: http.MethodGet, path: "/files/search",
		query: url.Values{"path": {root}, "pattern": {"*"}}, stream: true})
	switch {
	case err != nil:
		return nil, false, err
	case ans.Status == http.StatusNotFound && !structured(ans):
		return nil, false, failure(provider.ErrUnsupported, op, "the daemon has no /files/search")
	case ans.Status != http.StatusOK:
		return nil, false, toolboxError(op, ans)
	}
	defer ans.Stream.Close()
	// root first, then at most limit paths and one to tell there were more:
	// no more of the answer is read.
	found, err := provider.DecodeArray[string](ans.Stream, "files", limit+2)
	if err != nil {
		return nil, false, failure(provider.ErrFailed, op, "%s: reading the list: %s", root, err)
	}
	prefix := strings.TrimSuffix(root, "/") + "/"
	paths := make([]string, 0, min(len(found), limit))
	for _, p := range found {
		if !strings.HasPrefix(p, prefix) {
			continue // root itself
		}
		if len(paths) == limit {
			return paths, true, nil
		}
		paths = append(paths, p)
	}
	return paths, false, nil
}
