package provider

import (
	"context"
	"time"
)

// Pause pauses an instance, where the provider can (else ErrUnsupported).
func (i instrumented) Pause(ctx context.Context, inst Instance) error {
	p, ok := i.c.(Pauser)
	if !ok {
		return Errorf(ErrUnsupported, i.provider, "pause", "instances cannot be paused")
	}
	start := time.Now()
	err := p.Pause(ctx, inst)
	i.observe("pause", start, &err)
	return err
}

// keeper is the client as a Keeper, or ErrUnsupported naming op.
func (i instrumented) keeper(op string) (Keeper, error) {
	k, ok := i.c.(Keeper)
	if !ok {
		return nil, Errorf(ErrUnsupported, i.provider, op, "instances' files cannot be kept")
	}
	return k, nil
}

// Keep keeps an instance's files, where the provider can (else ErrUnsupported).
func (i instrumented) Keep(ctx context.Context, inst Instance) (Kept, error) {
	k, err := i.keeper("keep")
	if err != nil {
		return Kept{}, err
	}
	start := time.Now()
	out, err := k.Keep(ctx, inst)
	i.observe("keep", start, &err)
	return out, err
}

// CreateFrom makes an instance holding kept files, where the provider can (else ErrUnsupported).
func (i instrumented) CreateFrom(ctx context.Context, l Labels, kept Kept) (Instance, error) {
	k, err := i.keeper("create_from")
	if err != nil {
		return Instance{}, err
	}
	start := time.Now()
	out, err := k.CreateFrom(ctx, l, kept)
	i.observe("create_from", start, &err)
	return out, err
}

// Forget deletes kept files, where the provider can (else ErrUnsupported).
func (i instrumented) Forget(ctx context.Context, kept Kept) error {
	k, err := i.keeper("forget")
	if err != nil {
		return err
	}
	start := time.Now()
	err = k.Forget(ctx, kept)
	i.observe("forget", start, &err)
	return err
}

// KeepPool has the provider keep the sandbox's warm pool, where it can
// (else ErrUnsupported).
func (i instrumented) KeepPool(ctx context.Context, labels Labels, size int) (PoolCount, error) {
	k, ok := i.c.(PoolKeeper)
	if !ok {
		return PoolCount{}, Errorf(ErrUnsupported, i.provider, "keep pool", "warm pools are kept by this server")
	}
	start := time.Now()
	count, err := k.KeepPool(ctx, labels, size)
	i.observe("keep pool", start, &err)
	return count, err
}
