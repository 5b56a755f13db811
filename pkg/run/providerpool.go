package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// keptByProvider reports whether the sandbox's provider keeps its warm
// pool itself (ProviderPool): then the pool job tells the provider the
// size, and a new thread's Create takes one of the provider's instances.
func (s *Service) keptByProvider(sb auxilia.Sandbox) bool {
	d, err := s.Sandboxes.Describe(sb)
	return err == nil && d.Capabilities.Has(provider.ProviderPool)
}

// keepProviderPool tells the sandbox's provider the pool's size, bounded
// by the workspace's instances quota (the provider's ready instances are
// not ours to count until a thread takes one, so the pool never holds more
// than the workspace could still start), and records how the pool stands
// for the sandbox's view. A refusal counts as a failed create: the pool
// backs off and stops as one of ours does. A size of 0 removes a pool the
// provider keeps, as does the sandbox's delete (removeDeletedPools).
func (s *Service) keepProviderPool(ctx context.Context, sb auxilia.Sandbox, pool provider.Pool) error {
	stored, found, err := s.Pools.ProviderPool(ctx, sb.ID)
	if err != nil || (pool.Size == 0 && !found) {
		return err
	}
	f, err := s.poolFailures(ctx, sb)
	if err != nil || (pool.Size > 0 && f.Waiting(time.Now())) {
		return err
	}
	size, err := s.roomyPoolSize(ctx, sb, pool.Size)
	if err != nil {
		return err
	}
	client, current, err := s.Sandboxes.RetainedClient(ctx, sb.ID)
	if err != nil || current.Version != sb.Version {
		return err // edited meanwhile: the next pass keeps the new size
	}
	keeper, ok := client.(provider.PoolKeeper)
	if !ok {
		return fmt.Errorf("the %s client keeps no pools", sb.Provider)
	}
	count, err := keeper.KeepPool(ctx, poolLabels(sb), size)
	if err != nil {
		if pool.Size == 0 {
			return fmt.Errorf("removing the pool: %w", err) // tried again next pass
		}
		return s.Pools.SetFailures(ctx, failed(f, err, time.Now()))
	}
	s.Metrics.PoolObserved(sb.ID, sb.Provider, pool.Size, count.Ready)
	if pool.Size == 0 {
		return s.Pools.ForgetProviderPool(ctx, sb.ID)
	}
	kept := auxilia.ProviderPool{SandboxID: sb.ID, Version: sb.Version, Size: size, Ready: count.Ready,
		Creating: count.Creating, ObservedAt: time.Now()}
	if !found || kept.Version != stored.Version || kept.Size != stored.Size || kept.Ready != stored.Ready ||
		kept.Creating != stored.Creating {
		if err := s.Pools.SetProviderPool(ctx, kept); err != nil {
			return err
		}
	}
	if f.Count > 0 {
		return s.Pools.SetFailures(ctx, auxilia.PoolFailures{SandboxID: sb.ID, Version: sb.Version})
	}
	return nil
}

// roomyPoolSize is size, or less where the workspace's instances quota
// leaves less room.
func (s *Service) roomyPoolSize(ctx context.Context, sb auxilia.Sandbox, size int) (int, error) {
	if size == 0 {
		return 0, nil
	}
	room, _, limited, err := s.instanceRoom(ctx, sb.WorkspaceID)
	if err != nil || !limited {
		return size, err
	}
	return min(size, room), nil
}

// poolLabels name a sandbox's pool to its provider.
func poolLabels(sb auxilia.Sandbox) provider.Labels {
	return provider.Labels{Workspace: sb.WorkspaceID, Sandbox: sb.ID}
}

// deletedPoolsPage bounds how many deleted sandboxes' pools one pass removes.
const deletedPoolsPage = 100

// removeDeletedPools has the providers remove the pools they keep for
// sandboxes since deleted, with the credentials the sandbox had; a pool
// that could not be removed is tried again next pass.
func (s *Service) removeDeletedPools(ctx context.Context) error {
	deleted, err := s.Pools.DeletedWithProviderPools(ctx, deletedPoolsPage)
	if err != nil {
		return err
	}
	var first error
	for _, sb := range deleted {
		if err := s.removeProviderPool(ctx, sb); err != nil && first == nil {
			first = fmt.Errorf("pool of deleted sandbox %s: %w", sb.ID, err)
		}
	}
	return first
}

func (s *Service) removeProviderPool(ctx context.Context, sb auxilia.Sandbox) error {
	client, _, err := s.Sandboxes.RetainedClient(ctx, sb.ID)
	if err != nil {
		return err
	}
	if keeper, ok := client.(provider.PoolKeeper); ok {
		if _, err := keeper.KeepPool(ctx, poolLabels(sb), 0); err != nil && !errors.Is(err, provider.ErrUnsupported) {
			return err
		}
	}
	return s.Pools.ForgetProviderPool(ctx, sb.ID)
}

// providerPoolCounts are a provider-kept pool's ready instances and
// those on their way, as the pool job last found them; none before the
// job has told the provider this version's size.
func (s *Service) providerPoolCounts(ctx context.Context, sb auxilia.Sandbox) (ready, creating int, err error) {
	kept, found, err := s.WarmPools(sb.WorkspaceID).ProviderPool(ctx, sb.ID)
	if err != nil || !found || kept.Version != sb.Version {
		return 0, 0, err
	}
	return kept.Ready, kept.Creating, nil
}
