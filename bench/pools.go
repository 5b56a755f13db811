package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// poolResults is a burst of new threads against a ready warm pool: the
// starts the pool served against those that created their instances, and
// both against a warm start measured alone.
type poolResults struct {
	Size, Threads int
	Latency       time.Duration // the fake provider's round trip
	Create        time.Duration // and its creates
	Filled        time.Duration // from the sandbox's registration to its pool ready

	WarmAlone        series // warm starts, one at a time, before the burst
	WarmCPU          cpuUse
	Pooled, Unpooled series // the burst's starts, by whether the pool served them
	Burst            batch
	BurstCPU         cpuUse // spent during the whole burst
	DBWaits          dbWaits
	Locks            lockWaits
	BurstCalls       map[string]int
	BurstLogged      map[string]int
	ReadyBefore      int // instances ready just before the burst
}

// warmAloneRuns are the warm starts timed before the burst.
const warmAloneRuns = 30

func measurePools(ctx context.Context, cfg config, s *stack) (poolResults, error) {
	res := poolResults{Size: cfg.PoolSize, Threads: cfg.PoolThreads, Latency: cfg.Latency, Create: cfg.PoolCreate}
	fake, err := daytonatest.New(daytonatest.Options{Latency: cfg.Latency, CreateDelay: cfg.PoolCreate - cfg.Latency})
	if err != nil {
		return res, err
	}
	defer fake.Close()
	registered := time.Now()
	sandboxID, err := s.ours.createSandbox(ctx, map[string]any{
		"name": "Daytona with a warm pool (fake)", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey,
		"config": map[string]any{"target": "us", "pool": map[string]any{"size": cfg.PoolSize}}})
	if err != nil {
		return res, err
	}
	agentID, err := s.ours.createAgent(ctx, "Pooled agent")
	if err != nil {
		return res, err
	}
	if err := s.ours.bind(ctx, agentID, sandboxID); err != nil {
		return res, err
	}
	if _, err := s.ours.startRunView(ctx, agentID, "warm"); err != nil {
		return res, fmt.Errorf("the warm thread's first run: %w", err)
	}
	if res.ReadyBefore, err = waitForPool(ctx, s.ours, sandboxID, cfg.PoolSize); err != nil {
		return res, err
	}
	res.Filled = time.Since(registered)
	logf("  the pool of %d was ready %s after the sandbox was registered", cfg.PoolSize, res.Filled.Round(100*time.Millisecond))

	// A warm start alone, the goal's yardstick, on the same sandbox and provider.
	pause(ctx)
	pid := s.server.cmd.Process.Pid
	spent := startCPU(pid, s.db.name)
	warm := runBatch(ctx, warmAloneRuns, 1, func(ctx context.Context, _ int) error {
		return s.ours.startRun(ctx, agentID, "warm")
	})
	res.WarmAlone, res.WarmCPU = warm.series, spent()
	if warm.errors > 0 {
		return res, fmt.Errorf("warm runs failed: %s", warm.errorSummary(3))
	}

	// The burst: new threads, each on a connection of its own, at once.
	pause(ctx)
	burstAPI := s.ours
	burstAPI.http = newHTTPClient(cfg.PoolThreads)
	defer burstAPI.http.CloseIdleConnections()
	waitsBefore, err := readDBWaits(ctx, s.ours)
	if err != nil {
		return res, err
	}
	s.server.takeErrorLines()
	fake.ResetCalls()
	pooled := make([]bool, cfg.PoolThreads)
	stopSampling, err := s.db.sampleLockWaits(ctx, 5*time.Millisecond)
	if err != nil {
		return res, err
	}
	spent = startCPU(pid, s.db.name)
	res.Burst = runBatch(ctx, cfg.PoolThreads, cfg.PoolThreads, func(ctx context.Context, i int) error {
		r, err := burstAPI.startRunView(ctx, agentID, fmt.Sprintf("pooled-%04d", i))
		pooled[i] = err == nil && !r.Sandbox.Created
		return err
	})
	res.BurstCPU = spent()
	res.Locks = stopSampling()
	res.BurstCalls = fake.AllCalls()
	res.BurstLogged = s.server.takeErrorLines()
	waitsAfter, err := readDBWaits(ctx, s.ours)
	if err != nil {
		return res, err
	}
	res.DBWaits = waitsAfter.since(waitsBefore)
	res.Pooled, res.Unpooled = splitBurst(res.Burst, pooled)
	logf("  %d new threads at once: %d served by the pool, p50 %s p99 %s; the others p50 %s p99 %s; warm alone p50 %s",
		cfg.PoolThreads, res.Pooled.requests(), ms(res.Pooled.quantile(.5)), ms(res.Pooled.quantile(.99)),
		ms(res.Unpooled.quantile(.5)), ms(res.Unpooled.quantile(.99)), ms(res.WarmAlone.quantile(.5)))
	if res.Burst.errors > 0 {
		return res, fmt.Errorf("runs of the burst failed: %s", res.Burst.errorSummary(3))
	}
	return res, nil
}

// splitBurst parts a burst's latencies by whether the pool served the run.
func splitBurst(b batch, pooled []bool) (served, created series) {
	for i, took := range b.byRequest {
		if took < 0 {
			continue // failed
		}
		if pooled[i] {
			served.latencies = append(served.latencies, took)
		} else {
			created.latencies = append(created.latencies, took)
		}
	}
	served.seal()
	created.seal()
	return served, created
}

// waitForPool polls the sandbox until its pool is ready with size
// instances, and returns how many it had.
func waitForPool(ctx context.Context, a api, sandboxID string, size int) (int, error) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var sb struct {
			Pool struct {
				State  string `json:"state"`
				Ready  int    `json:"ready"`
				Detail string `json:"detail"`
			} `json:"pool"`
		}
		if err := a.callJSON(ctx, http.MethodGet, "/api/v1/sandboxes/"+sandboxID, nil, http.StatusOK, &sb); err != nil {
			return 0, err
		}
		if sb.Pool.State == "ready" && sb.Pool.Ready >= size {
			return sb.Pool.Ready, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the pool was not ready within 5 minutes: %s, %d ready (%s)", sb.Pool.State, sb.Pool.Ready, sb.Pool.Detail)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
