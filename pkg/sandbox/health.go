package sandbox

import (
	"context"
	"log/slog"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/jobs"
)

// healthBatch bounds how many sandboxes one health pass probes,
// healthParallel how many at once, and healthRecordLimit how long one
// probe's reading and recording may take beyond the probe itself.
const (
	healthBatch       = 200
	healthParallel    = 4
	healthRecordLimit = 30 * time.Second
)

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
	var enabled []auxilia.Sandbox
	for _, sb := range due {
		if r.Providers.Disabled(sb.Provider) == "" {
			enabled = append(enabled, sb)
		}
	}
	// Each probe within its own deadline, workspaces sharing the slots.
	spread := jobs.Spread{Parallel: healthParallel, Deadline: r.probeTimeout + healthRecordLimit}
	jobs.Each(ctx, enabled, spread, func(sb auxilia.Sandbox) string { return sb.WorkspaceID },
		func(ctx context.Context, sb auxilia.Sandbox) {
			// A sandbox deleted meanwhile answers not found: there is nothing to record.
			_, _, _ = r.probeStored(ctx, sb.WorkspaceID, sb.ID)
		})
	return len(enabled), nil
}

// HealthJob is the health checks as a background job: a pass every
// interval probes the sandboxes not probed for that long.
func (r *Registry) HealthJob(every time.Duration, stale Unchecked, log *slog.Logger) jobs.Job {
	return jobs.Job{Name: "health", Every: every, Jitter: every / 10, Run: func(ctx context.Context) error {
		n, err := r.CheckHealth(ctx, every, stale)
		log.Debug("health pass", "probed", n)
		return err
	}}
}
