package local

import (
	"context"
	"os"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// UpdateNetwork gives a running instance the client's network rules. On
// bubblewrap it needs nothing: each command runs in a jail of its own, whose
// network namespace and nftables rules are made from the client's config as
// it starts (jail, bubblewrap.Jail.Egress), and a sandbox's edit opens a new
// client, so every command started from now on enforces the new rules (one
// already running, or an open terminal, keeps those it started with until
// it ends). On gVisor the container's router takes the rules at once, for
// what runs too; a container started offline has no router, and takes a
// network only when started again (ErrUnsupported: its next start).
func (c *client) UpdateNetwork(_ context.Context, inst provider.Instance) error {
	const op = "update network"
	dir, err := c.folder(op, inst)
	if err != nil {
		return err
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return gone(op, inst.ID)
	}
	if c.config.Isolation != isolationGVisor {
		return nil
	}
	return gvisorIsolation{c}.updateNetwork(op, inst.ID)
}

var _ provider.NetworkUpdater = (*client)(nil)
