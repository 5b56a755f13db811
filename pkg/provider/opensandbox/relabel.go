package opensandbox

import (
	"context"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// relabelOp names a relabel in errors and metrics.
const relabelOp = "relabel"

// ourKeys are the metadata keys metadata sets, all of which a relabel rewrites.
var ourKeys = []string{labelManagedBy, labelWorkspace, labelSandbox, labelThread, labelInstance}

// Relabel gives a claimed pool instance its thread's labels, keeping its
// creation label (our id for the instance, unchanged), by which FindCreated
// finds it. The server takes a JSON merge patch of the metadata, answered
// with the sandbox (PATCH /sandboxes/{id}/metadata, in
// server/opensandbox_server/api/lifecycle.py): each of our keys is set to
// the thread's value or, where the thread has none, deleted with a null;
// metadata under other keys is left as it is. A server from before the
// route answers 404 and the instance keeps the pool's labels
// (ErrUnsupported); a sandbox gone is ErrGone.
func (c *client) Relabel(ctx context.Context, inst provider.Instance, labels provider.Labels) error {
	want := metadata(labels)
	patch := make(map[string]*string, len(ourKeys))
	for _, key := range ourKeys {
		if value, ok := want[key]; ok {
			patch[key] = &value
		} else {
			patch[key] = nil
		}
	}
	return c.do(ctx, c.lifecycle(relabelOp, "PATCH", "/sandboxes/"+url.PathEscape(inst.ID)+"/metadata", patch), nil)
}

var _ provider.Relabeler = (*client)(nil)
