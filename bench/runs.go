package main

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// warmupRuns are started on the warm thread before its runs are timed.
const warmupRuns = 20

type runResults struct {
	Latency time.Duration // the fake provider's round trip

	// Warm: run starts on a thread whose instance is live, one at a time.
	Warm      series
	WarmCalls map[string]int // provider calls during them, by operation
	WarmCPU   cpuUse

	// Cold: each thread's first run, which makes its instance.
	Cold            batch
	ColdCalls       map[string]int
	ColdConcurrency int

	// Burst: every thread starts a run at once, each reconnecting its instance.
	Burst        batch
	BurstCalls   map[string]int
	Threads      int
	RSSBefore    int64 // the server's resident memory, bytes
	RSSPeak      int64 // highest sample during the burst
	RSSAfter     int64
	BurstLogged  map[string]int // the server's error log lines during the burst
	BurstSession int64          // Postgres sessions opened during the burst

	BurstCPU cpuUse

	// FloorBurst: the same burst on the floor, which makes the same
	// transactions a run as the server, around a wait of one round trip.
	FloorBurst    batch
	FloorBurstCPU cpuUse

	// CallingBurst: the same burst on the floor again, which calls the
	// provider as the server does instead of waiting.
	CallingBurst    batch
	CallingBurstCPU cpuUse
	CallingCalls    map[string]int
}

func measureRuns(ctx context.Context, cfg config, s *stack) (runResults, error) {
	res := runResults{Latency: cfg.Latency, Threads: cfg.Threads, ColdConcurrency: cfg.ColdConcurrency}
	fake, err := daytonatest.New(daytonatest.Options{Latency: cfg.Latency})
	if err != nil {
		return res, err
	}
	defer fake.Close()
	sandboxID, err := s.ours.createSandbox(ctx, map[string]any{
		"name": "Daytona (fake)", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey,
		"config": map[string]any{"target": "us"}})
	if err != nil {
		return res, err
	}
	agentID, err := s.ours.createAgent(ctx, "Bench agent")
	if err != nil {
		return res, err
	}
	if err := s.ours.bind(ctx, agentID, sandboxID); err != nil {
		return res, err
	}

	// Warm starts: the first run makes the instance, the others warm up the
	// server's caches and connections; then each run is timed alone.
	for range warmupRuns {
		if err := s.ours.startRun(ctx, agentID, "warm"); err != nil {
			return res, fmt.Errorf("warm-up run: %w", err)
		}
	}
	fake.ResetCalls()
	spent := startCPU(s.server.cmd.Process.Pid, s.db.name)
	warm := runBatch(ctx, cfg.WarmRuns, 1, func(ctx context.Context, _ int) error {
		return s.ours.startRun(ctx, agentID, "warm")
	})
	res.Warm, res.WarmCalls, res.WarmCPU = warm.series, fake.AllCalls(), spent()
	logf("  warm run start: p50 %s p99 %s, %.2f provider calls a run", ms(res.Warm.quantile(.5)), ms(res.Warm.quantile(.99)),
		perRun(res.WarmCalls, res.Warm.requests()))
	if warm.errors > 0 {
		return res, fmt.Errorf("warm runs failed: %s", warm.errorSummary(3))
	}

	thread := func(i int) string { return fmt.Sprintf("thread-%04d", i) }
	pause(ctx)
	fake.ResetCalls()
	res.Cold = runBatch(ctx, cfg.Threads, cfg.ColdConcurrency, func(ctx context.Context, i int) error {
		return s.ours.startRun(ctx, agentID, thread(i))
	})
	res.ColdCalls = fake.AllCalls()
	logf("  %d first runs, %d at a time: %s, p50 %s, %.2f provider calls a run", cfg.Threads, cfg.ColdConcurrency,
		res.Cold.total.Round(time.Millisecond), ms(res.Cold.quantile(.5)), perRun(res.ColdCalls, res.Cold.requests()))
	if res.Cold.errors > 0 {
		return res, fmt.Errorf("first runs failed: %s", res.Cold.errorSummary(3))
	}

	// The burst: every thread at once, on connections of their own, as
	// that many clients would.
	pause(ctx)
	burstAPI := s.ours
	burstAPI.http = newHTTPClient(cfg.Threads)
	defer burstAPI.http.CloseIdleConnections()
	before, err := s.server.readMemory()
	if err != nil {
		return res, err
	}
	res.RSSBefore = before.rss
	s.server.takeErrorLines()
	fake.ResetCalls()
	stopWatching := s.server.watchMemory(5 * time.Millisecond)
	res.BurstSession, err = s.countSessions(ctx, func() {
		spent := startCPU(s.server.cmd.Process.Pid, s.db.name)
		res.Burst = runBatch(ctx, cfg.Threads, cfg.Threads, func(ctx context.Context, i int) error {
			return burstAPI.startRun(ctx, agentID, thread(i))
		})
		res.BurstCPU = spent()
	})
	res.RSSPeak = stopWatching()
	if err != nil {
		return res, err
	}
	res.BurstCalls = fake.AllCalls()
	res.BurstLogged = s.server.takeErrorLines()
	if after, err := s.server.readMemory(); err == nil {
		res.RSSAfter = after.rss
	}
	logf("  %d runs at once: %s, %d failed, %.2f provider calls a run, RSS %s → peak %s",
		cfg.Threads, res.Burst.total.Round(time.Millisecond), res.Burst.errors,
		perRun(res.BurstCalls, res.Burst.requests()+res.Burst.errors), mib(res.RSSBefore), mib(res.RSSPeak))

	// The floor's bursts: the same threads, at once, on connections of
	// their own; first waiting for the provider's latency, then calling it.
	for _, b := range []struct {
		name      string
		prefix    string
		burst     *batch
		cpu       *cpuUse
		countedIn *map[string]int
	}{
		{"the floor's", "", &res.FloorBurst, &res.FloorBurstCPU, nil},
		{"the floor's, calling the provider,", callingPrefix, &res.CallingBurst, &res.CallingBurstCPU, &res.CallingCalls},
	} {
		pause(ctx)
		floorAPI := s.base
		floorAPI.base += b.prefix
		floorAPI.http = newHTTPClient(cfg.Threads)
		fake.ResetCalls()
		spent := startCPU(s.floor.cmd.Process.Pid, s.db.name)
		*b.burst = runBatch(ctx, cfg.Threads, cfg.Threads, func(ctx context.Context, i int) error {
			return floorAPI.startRun(ctx, agentID, thread(i))
		})
		*b.cpu = spent()
		floorAPI.http.CloseIdleConnections()
		if b.countedIn != nil {
			*b.countedIn = fake.AllCalls()
		}
		logf("  %s %d runs at once: %s, %d failed; ours / it %.2f×", b.name, cfg.Threads,
			b.burst.total.Round(time.Millisecond), b.burst.errors, float64(res.Burst.total)/float64(max(b.burst.total, 1)))
		if b.burst.errors > 0 {
			return res, fmt.Errorf("%s burst failed: %s", b.name, b.burst.errorSummary(3))
		}
	}
	return res, nil
}

// perRun is the provider calls per run.
func perRun(calls map[string]int, runs int) float64 {
	if runs == 0 {
		return 0
	}
	return float64(totalCalls(calls)) / float64(runs)
}

func totalCalls(calls map[string]int) int {
	total := 0
	for n := range maps.Values(calls) {
		total += n
	}
	return total
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
