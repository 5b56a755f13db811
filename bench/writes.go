package main

import (
	"context"
	"fmt"
	"net/http"
)

// createdPrefix starts the names of the sandboxes the creates make.
const createdPrefix = "Created "

type writeResults struct {
	Create, Patch                 series
	CreateSessions, PatchSessions int64 // Postgres sessions opened meanwhile
}

// measureWrites loads sandbox registration and editing: validation of the
// whole sandbox, the secret sealed, the row and its audit entry written in
// one transaction.
func measureWrites(ctx context.Context, cfg config, s *stack) (writeResults, error) {
	var res writeResults
	loop := closedLoop{concurrency: cfg.Concurrency, warmup: cfg.Warmup, window: cfg.Window}
	create := func(ctx context.Context, worker, i int) error {
		body := fmt.Sprintf(`{"name":"`+createdPrefix+`%d-%d","provider":"opensandbox","url":"sandbox.internal:8083",`+
			`"secret":"osk-created-%d-%d-0123456789","config":{"default_packages":["pandas==2.2.*"],"timeout":900}}`, worker, i, worker, i)
		_, err := s.ours.call(ctx, http.MethodPost, "/api/v1/sandboxes", []byte(body), http.StatusCreated)
		return err
	}

	pause(ctx)
	var err error
	res.CreateSessions, err = s.countSessions(ctx, func() {
		res.Create = loop.run(ctx, create)
	})
	if err != nil {
		return res, err
	}
	logf("  create: %.0f/s p50 %s p99 %s", res.Create.throughput(), ms(res.Create.quantile(.5)), ms(res.Create.quantile(.99)))
	if res.Create.errors > 0 {
		return res, fmt.Errorf("creates failed: %s", res.Create.errorSummary(3))
	}

	// Edits go to every sandbox the creates made, each worker to its own
	// share of them in turn: edits of one sandbox by two workers would race
	// for its version, and a handful of rows edited over and over would
	// measure Postgres's contention on their page rather than the server.
	ids, err := s.ours.sandboxIDs(ctx, createdPrefix)
	if err != nil {
		return res, err
	}
	if len(ids) < cfg.Concurrency {
		return res, fmt.Errorf("only %d sandboxes to edit for %d workers", len(ids), cfg.Concurrency)
	}
	share := len(ids) / cfg.Concurrency
	patch := func(ctx context.Context, worker, i int) error {
		id := ids[worker*share+i%share]
		body := fmt.Sprintf(`{"description":"edit %d","secret":"osk-rotated-%d-%d-0123456789","config":{"timeout":%d}}`,
			i, worker, i, 600+i%600)
		_, err := s.ours.call(ctx, http.MethodPatch, "/api/v1/sandboxes/"+id, []byte(body), http.StatusOK)
		return err
	}
	pause(ctx)
	res.PatchSessions, err = s.countSessions(ctx, func() {
		res.Patch = loop.run(ctx, patch)
	})
	if err != nil {
		return res, err
	}
	logf("  patch: %.0f/s p50 %s p99 %s", res.Patch.throughput(), ms(res.Patch.quantile(.5)), ms(res.Patch.quantile(.99)))
	if res.Patch.errors > 0 {
		return res, fmt.Errorf("patches failed: %s", res.Patch.errorSummary(3))
	}
	return res, nil
}
