package provider

import (
	"context"
	"slices"
	"time"
)

// NetworkUpdater is implemented by clients that can change the network
// rules of a running instance: UpdateNetwork applies the network of the
// client's own config to inst, replacing the rules it had. A paused or
// stopped instance is not running: its caller applies the rules when it
// runs again.
type NetworkUpdater interface {
	UpdateNetwork(ctx context.Context, inst Instance) error
}

// NetworkOf is a config's network block.
func NetworkOf(cfg Config) Network { return cfg.common().Network }

// Equal reports whether two networks say the same: the same default and
// the same targets in each list, in any order.
func (n Network) Equal(o Network) bool {
	same := func(a, b []string) bool {
		a, b = slices.Clone(a), slices.Clone(b)
		slices.Sort(a)
		slices.Sort(b)
		return slices.Equal(a, b)
	}
	return n.Default == o.Default && same(n.Allow, o.Allow) && same(n.Deny, o.Deny)
}

// UpdateNetwork applies the client's network to a running instance, where
// the provider can; ErrUnsupported where it cannot.
func (i instrumented) UpdateNetwork(ctx context.Context, inst Instance) error {
	u, ok := i.c.(NetworkUpdater)
	if !ok {
		return Errorf(ErrUnsupported, i.provider, "update network", "a running instance's network cannot change")
	}
	start := time.Now()
	err := u.UpdateNetwork(ctx, inst)
	i.observe("update network", start, &err)
	return err
}
