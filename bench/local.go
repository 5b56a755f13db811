package main

import (
	"context"
	"fmt"
	"time"
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

	// A warm start and a new thread's pooled first run take turns, one at a
	// time, so that what drifts on the machine meanwhile (the pool's
	// refills among it) falls on both alike.
	pid := s.embedded.cmd.Process.Pid
	pause(ctx)
	start := func(thread string, cpu *cpuUse) (runView, time.Duration, error) {
		spent := startCPU(pid, s.db.name)
		t0 := time.Now()
		r, err := a.startRunView(ctx, agentID, thread)
		took := time.Since(t0)
		cpu.add(spent())
		return r, took, err
	}
	for i := range cfg.LocalRuns {
		_, took, err := start("warm", &res.WarmCPU)
		res.Warm.record(took, err)
		r, took, err := start(fmt.Sprintf("local-%04d", i), &res.PoolCPU)
		switch {
		case err != nil:
			res.Pooled.record(took, err)
		case !r.Sandbox.Created:
			res.Pooled.record(took, nil)
		}
	}
	res.Warm.seal()
	res.Pooled.seal()
	res.Served = res.Pooled.requests()
	logf("  local: warm p50 %s; pooled first run p50 %s (%d of %d served by the pool)",
		ms(res.Warm.quantile(.5)), ms(res.Pooled.quantile(.5)), res.Served, cfg.LocalRuns)
	if res.Warm.errors+res.Pooled.errors > 0 {
		return res, fmt.Errorf("local runs failed: %s", errorsOf(res.Warm, res.Pooled))
	}
	return res, nil
}
