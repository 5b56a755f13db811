package sandbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// healthBatch bounds how many sandboxes one health pass probes, and healthParallel how many at once.
const (
	healthBatch    = 200
	healthParallel = 4
)

// Locker runs work in one process at a time across every replica.
type Locker interface {
	WithTryLock(ctx context.Context, name string, fn func(ctx context.Context) error) (bool, error)
}

// Unchecked finds the sandboxes whose health is older than a time.
type Unchecked interface {
	Unchecked(ctx context.Context, before time.Time, limit int) ([]auxilia.Sandbox, error)
}

// CheckHealth probes every sandbox whose health is older than every, so
// that the list shows a recent state even for sandboxes no run uses.
func (r *Registry) CheckHealth(ctx context.Context, every time.Duration, stale Unchecked) (int, error) {
	due, err := stale.Unchecked(ctx, time.Now().Add(-every), healthBatch)
	if err != nil {
		return 0, err
	}
	var wg sync.WaitGroup
	slot := make(chan struct{}, healthParallel)
	probed := 0
	for _, sb := range due {
		if r.Providers.Disabled(sb.Provider) != "" {
			continue
		}
		probed++
		wg.Add(1)
		slot <- struct{}{}
		go func() {
			defer func() { <-slot; wg.Done() }()
			// A sandbox deleted meanwhile answers not found: there is nothing to record.
			_, _, _ = r.probeStored(ctx, sb.WorkspaceID, sb.ID)
		}()
	}
	wg.Wait()
	return probed, nil
}

// RunHealthChecks checks health every interval until ctx ends, one replica at a time.
func (r *Registry) RunHealthChecks(ctx context.Context, every time.Duration, lock Locker, stale Unchecked, log *slog.Logger) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		_, err := lock.WithTryLock(ctx, "health", func(ctx context.Context) error {
			n, err := r.CheckHealth(ctx, every, stale)
			log.Debug("health pass", "probed", n)
			return err
		})
		if err != nil && ctx.Err() == nil {
			log.Warn("health pass failed", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
