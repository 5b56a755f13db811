package main

import (
	"context"
	"fmt"
)

// localResults compares, on the local provider, a new thread's first run
// served by the warm pool (a claim, then the relabel and the reconnect of
// the pool's instance) with a warm run start (a reconnect), one at a time.
type localResults struct {
	Runs             int
	Warm, Pooled     series
	WarmCPU, PoolCPU cpuUse
	Served           int    // pooled first runs the pool did serve
	Failure          string // why the local provider could not be measured here, or ""
}

// localWarmups are the warm runs not timed, after the thread's first.
const localWarmups = 5

// measureLocal runs on the server on its embedded database, where the local
// provider is on, as on a first install.
func measureLocal(ctx context.Context, cfg config, s *stack) (localResults, error) {
	res := localResults{Runs: cfg.LocalRuns}
	a := s.oursEmbedded
	sandboxID, err := a.createSandbox(ctx, map[string]any{"name": "Local with a warm pool", "provider": "local",
		"config": map[string]any{"pool": map[string]any{"size": cfg.LocalRuns}}})
	if err != nil {
		return res, err
	}
	agentID, err := a.createAgent(ctx, "Local agent")
	if err != nil {
		return res, err
	}
	if err := a.bind(ctx, agentID, sandboxID); err != nil {
		return res, err
	}
	for range 1 + localWarmups {
		if err := a.startRun(ctx, agentID, "warm"); err != nil {
			return res, fmt.Errorf("warm-up run: %w", err)
		}
	}
	if _, err := waitForPool(ctx, a, sandboxID, cfg.LocalRuns); err != nil {
		return res, err
	}

	pid := s.embedded.cmd.Process.Pid
	pause(ctx)
	spent := startCPU(pid, s.db.name)
	warm := runBatch(ctx, cfg.LocalRuns, 1, func(ctx context.Context, _ int) error {
		return a.startRun(ctx, agentID, "warm")
	})
	res.Warm, res.WarmCPU = warm.series, spent()
	pause(ctx)
	spent = startCPU(pid, s.db.name)
	served := make([]bool, cfg.LocalRuns)
	pooled := runBatch(ctx, cfg.LocalRuns, 1, func(ctx context.Context, i int) error {
		r, err := a.startRunView(ctx, agentID, fmt.Sprintf("local-%04d", i))
		served[i] = err == nil && !r.Sandbox.Created
		return err
	})
	res.PoolCPU = spent()
	res.Pooled, _ = splitBurst(pooled, served)
	res.Served = res.Pooled.requests()
	logf("  local: warm p50 %s; pooled first run p50 %s (%d of %d served by the pool)",
		ms(res.Warm.quantile(.5)), ms(res.Pooled.quantile(.5)), res.Served, cfg.LocalRuns)
	if warm.errors+pooled.errors > 0 {
		return res, fmt.Errorf("local runs failed: %s", errorsOf(warm.series, pooled.series))
	}
	return res, nil
}
