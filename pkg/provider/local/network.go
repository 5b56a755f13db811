package local

import (
	"context"
	"os"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// UpdateNetwork needs nothing of a running instance: each command runs in
// a jail of its own, whose network namespace and nftables rules are made
// from the client's config as it starts (jail, bubblewrap.Jail.Egress), and
// a sandbox's edit opens a new client. So every command started from now
// on enforces the new rules; one already running, or an open terminal,
// keeps the rules it started with until it ends. It checks that the
// instance is still there.
func (c *client) UpdateNetwork(_ context.Context, inst provider.Instance) error {
	const op = "update network"
	dir, err := c.folder(op, inst)
	if err != nil {
		return err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return gone(op, inst.ID)
	}
	return nil
}

var _ provider.NetworkUpdater = (*client)(nil)
