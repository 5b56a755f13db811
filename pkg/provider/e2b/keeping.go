package e2b

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

var (
	_ provider.Pauser         = (*Client)(nil)
	_ provider.Keeper         = (*Client)(nil)
	_ provider.TerminalOpener = (*Client)(nil)
)

// snapshotInfo is the snapshot's answer (SnapshotInfo in spec/openapi.yml,
// written by packages/api/internal/handlers/snapshot_template_create.go).
// It carries no size, nor does the list of snapshots (the same
// SnapshotInfo), so kept files here report 0 bytes and are not metered;
// diskSizeMB is the sandbox's disk, not what the snapshot stores.
type snapshotInfo struct {
	SnapshotID string `json:"snapshotID"`
}

// Keep snapshots the sandbox (POST /sandboxes/{id}/snapshots): a template
// of its own that new sandboxes are created from; the sandbox runs on.
func (c *Client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	const op = "keep"
	var snap snapshotInfo
	if err := c.controlPlane(ctx, op, http.MethodPost, sandboxPath(inst.ID, "/snapshots"), map[string]string{}, &snap); err != nil {
		return provider.Kept{}, err
	}
	if snap.SnapshotID == "" {
		return provider.Kept{}, failure(provider.ErrFailed, op, "the answer names no snapshot")
	}
	return provider.Kept{ID: snap.SnapshotID, At: time.Now()}, nil
}

// CreateFrom creates a sandbox from the snapshot's template.
func (c *Client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	return c.create(ctx, "create from kept files", kept.ID, labels)
}

// Forget deletes the snapshot's template (DELETE /templates/{templateID});
// one gone is not an error.
func (c *Client) Forget(ctx context.Context, kept provider.Kept) error {
	const op = "forget"
	a, err := c.send(ctx, op, http.MethodDelete, "/templates/"+url.PathEscape(templateOf(kept.ID)), nil)
	if err != nil || a.OK() || a.Status == http.StatusNotFound {
		return err
	}
	return c.caller.Refusal(op, a)
}

// templateOf is a snapshot's template, without its tag (abc123:default).
func templateOf(snapshotID string) string {
	if i := strings.LastIndexByte(snapshotID, ':'); i > 0 {
		return snapshotID[:i]
	}
	return snapshotID
}
