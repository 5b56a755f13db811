package echotest

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Pause pauses the instance; a paused one stays paused.
func (c *client) Pause(ctx context.Context, inst provider.Instance) error {
	return c.caller.JSON(ctx, c.call("pause", http.MethodPost, instancePath(inst.ID, "/pause"), nil, nil), nil)
}

// Keep takes a snapshot of the instance's folder.
func (c *client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	var snap snapshot
	if err := c.caller.JSON(ctx, c.call("keep", http.MethodPost, instancePath(inst.ID, "/snapshots"), nil, nil), &snap); err != nil {
		return provider.Kept{}, err
	}
	return provider.Kept{ID: snap.ID, At: snap.TakenAt}, nil
}

// CreateFrom creates an instance, as Create does, from the snapshot.
func (c *client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	return c.create(ctx, labels, kept.ID)
}

// Forget deletes the snapshot; a gone one is no error.
func (c *client) Forget(ctx context.Context, kept provider.Kept) error {
	err := c.caller.JSON(ctx, c.call("forget", http.MethodDelete, "/snapshots/"+url.PathEscape(kept.ID), nil, nil), nil)
	if errors.Is(err, provider.ErrGone) {
		return nil
	}
	return err
}

var (
	_ provider.Pauser = (*client)(nil)
	_ provider.Keeper = (*client)(nil)
)
