package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// poolResults are bursts of new threads against a ready warm pool: the
// starts the pool served against those that created their instances, and
// both against a warm start measured alone before each burst; then the
// same bursts against the floor (floor_pools.go). The series hold every
// burst's runs together.
type poolResults struct {
	Size, Threads int
	Latency       time.Duration // the fake provider's round trip
	Create        time.Duration // and its creates
	Filled        time.Duration // from the sandbox's registration to its pool ready

	WarmAlone        series // warm starts, one at a time, before each burst
	WarmCPU          cpuUse
	Pooled, Unpooled series // the bursts' starts, by whether the pool served them
	Burst            series // all of them
	BurstCPU         cpuUse // spent during the bursts
	DBWaits          dbWaits
	Locks            lockWaits
	BurstCalls       map[string]int
	BurstLogged      map[string]int
	ReadyBefore      int           // instances ready just before the first burst
	Bursts           []burstFigure // each burst's own

	// The floor's bursts: its pooled starts, and its warm starts alone.
	FloorPooled, FloorWarmAlone series
	FloorBursts                 []burstFigure
}

// burstFigure is one burst's pooled starts against the warm starts timed
// just before it.
type burstFigure struct{ Pooled, WarmAlone series }

// warmAloneRuns are the warm starts timed before each burst.
const warmAloneRuns = 30

func measurePools(ctx context.Context, cfg config, s *stack) (poolResults, error) {
	res := poolResults{Size: cfg.PoolSize, Threads: cfg.PoolThreads, Latency: cfg.Latency, Create: cfg.PoolCreate,
		BurstCalls: map[string]int{}, BurstLogged: map[string]int{}}
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
	for round := range cfg.PoolBursts {
		// The pool job refills what the burst before took.
		ready, err := waitForPool(ctx, s.ours, sandboxID, cfg.PoolSize)
		if err != nil {
			return res, err
		}
		if round == 0 {
			res.ReadyBefore, res.Filled = ready, time.Since(registered)
			logf("  the pool of %d was ready %s after the sandbox was registered", cfg.PoolSize, res.Filled.Round(100*time.Millisecond))
		}
		one, err := poolBurst(ctx, cfg, s, fake, agentID, round)
		if err != nil {
			return res, err
		}
		res.add(one)
		logf("  burst %d of %d: %d new threads at once, %d served by the pool, p50 %s p99 %s; the others p50 %s p99 %s; warm alone p50 %s",
			round+1, cfg.PoolBursts, cfg.PoolThreads, one.Pooled.requests(), ms(one.Pooled.quantile(.5)), ms(one.Pooled.quantile(.99)),
			ms(one.Unpooled.quantile(.5)), ms(one.Unpooled.quantile(.99)), ms(one.WarmAlone.quantile(.5)))
	}
	for round := range cfg.PoolBursts {
		// The floor claims from the same pool, which the server's pool job refills.
		if _, err := waitForPool(ctx, s.ours, sandboxID, cfg.PoolSize); err != nil {
			return res, err
		}
		one, err := floorPoolBurst(ctx, cfg, s, agentID, round)
		if err != nil {
			return res, err
		}
		res.addFloor(one)
		logf("  the floor's burst %d of %d: %d served by the pool, p50 %s p99 %s; warm alone p50 %s",
			round+1, cfg.PoolBursts, one.Pooled.requests(), ms(one.Pooled.quantile(.5)), ms(one.Pooled.quantile(.99)),
			ms(one.WarmAlone.quantile(.5)))
	}
	for _, all := range []*series{&res.WarmAlone, &res.Pooled, &res.Unpooled, &res.Burst, &res.FloorPooled, &res.FloorWarmAlone} {
		all.seal()
	}
	return res, nil
}

// burstResult is one burst and the warm starts timed before it.
type burstResult struct {
	WarmAlone         series
	WarmCPU, BurstCPU cpuUse
	Pooled, Unpooled  series
	Burst             batch
	DBWaits           dbWaits
	Locks             lockWaits
	Calls, Logged     map[string]int
}

// poolBurst times warm starts alone, then starts new threads' first runs
// at once (their keys numbered by round), each on a connection of its own.
func poolBurst(ctx context.Context, cfg config, s *stack, fake *daytonatest.Server, agentID string, round int) (burstResult, error) {
	var res burstResult
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
		r, err := burstAPI.startRunView(ctx, agentID, fmt.Sprintf("pooled-%d-%04d", round, i))
		pooled[i] = err == nil && !r.Sandbox.Created
		return err
	})
	res.BurstCPU = spent()
	res.Locks = stopSampling()
	res.Calls = fake.AllCalls()
	res.Logged = s.server.takeErrorLines()
	waitsAfter, err := readDBWaits(ctx, s.ours)
	if err != nil {
		return res, err
	}
	res.DBWaits = waitsAfter.since(waitsBefore)
	res.Pooled, res.Unpooled = splitBurst(res.Burst, pooled)
	if res.Burst.errors > 0 {
		return res, fmt.Errorf("runs of the burst failed: %s", res.Burst.errorSummary(3))
	}
	return res, nil
}

// add counts one burst in with the others.
func (r *poolResults) add(b burstResult) {
	r.Bursts = append(r.Bursts, burstFigure{Pooled: b.Pooled, WarmAlone: b.WarmAlone})
	r.WarmAlone.latencies = append(r.WarmAlone.latencies, b.WarmAlone.latencies...)
	r.Pooled.latencies = append(r.Pooled.latencies, b.Pooled.latencies...)
	r.Unpooled.latencies = append(r.Unpooled.latencies, b.Unpooled.latencies...)
	r.Burst.latencies = append(r.Burst.latencies, b.Burst.latencies...)
	r.WarmCPU.add(b.WarmCPU)
	r.BurstCPU.add(b.BurstCPU)
	r.DBWaits = r.DBWaits.plus(b.DBWaits)
	r.Locks = lockWaits{Samples: r.Locks.Samples + b.Locks.Samples, Waiting: r.Locks.Waiting + b.Locks.Waiting,
		Most: max(r.Locks.Most, b.Locks.Most), Interval: b.Locks.Interval}
	for k, n := range b.Calls {
		r.BurstCalls[k] += n
	}
	for k, n := range b.Logged {
		r.BurstLogged[k] += n
	}
}

// floorPoolBurst is poolBurst against the floor: warm starts alone, then
// the same burst of new threads (keys floor-<round>-<n>), of which the floor
// serves those the pool can and refuses the others at once.
func floorPoolBurst(ctx context.Context, cfg config, s *stack, agentID string, round int) (burstFigure, error) {
	pause(ctx)
	floorAPI := s.base
	warm := runBatch(ctx, warmAloneRuns, 1, func(ctx context.Context, _ int) error {
		return floorAPI.startRun(ctx, agentID, "warm")
	})
	if warm.errors > 0 {
		return burstFigure{}, fmt.Errorf("the floor's warm runs failed: %s", warm.errorSummary(3))
	}
	pause(ctx)
	floorAPI.http = newHTTPClient(cfg.PoolThreads)
	defer floorAPI.http.CloseIdleConnections()
	pooled := make([]bool, cfg.PoolThreads)
	burst := runBatch(ctx, cfg.PoolThreads, cfg.PoolThreads, func(ctx context.Context, i int) error {
		err := floorAPI.startRun(ctx, agentID, fmt.Sprintf("floor-%d-%04d", round, i))
		if refused := (*statusError)(nil); errors.As(err, &refused) && refused.status == http.StatusServiceUnavailable {
			return nil // the pool had no instance left for it
		}
		pooled[i] = err == nil
		return err
	})
	if burst.errors > 0 {
		return burstFigure{}, fmt.Errorf("the floor's burst failed: %s", burst.errorSummary(3))
	}
	served, _ := splitBurst(burst, pooled)
	return burstFigure{Pooled: served, WarmAlone: warm.series}, nil
}

// addFloor counts one of the floor's bursts in with the others.
func (r *poolResults) addFloor(b burstFigure) {
	r.FloorBursts = append(r.FloorBursts, b)
	r.FloorPooled.latencies = append(r.FloorPooled.latencies, b.Pooled.latencies...)
	r.FloorWarmAlone.latencies = append(r.FloorWarmAlone.latencies, b.WarmAlone.latencies...)
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
