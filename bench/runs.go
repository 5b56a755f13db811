package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
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
	WarmWaits dbWaits // the server's line during them

	// The floor's warm starts on the same thread, as many, one at a time:
	// waiting the provider's latency out, and calling the provider as the
	// server does. QuietTrips: what a round trip to Postgres costs this
	// machine back to back and after a pause as long as the provider's.
	FloorWarm, CallingWarm       series
	FloorWarmCPU, CallingWarmCPU cpuUse
	QuietTrips                   quietTrips

	// Cold: each thread's first run, which makes its instance.
	Cold            batch
	ColdCalls       map[string]int
	ColdConcurrency int

	// Burst: every thread starts a run at once, each reconnecting its instance.
	Burst        batch
	BurstCalls   map[string]int
	BurstFailed  int    // runs of the bursts that failed, all rounds
	BurstAnswers string // what the first of them were answered
	Threads      int
	RSSBefore    int64 // the server's resident memory before the first round, bytes
	RSSPeak      int64 // highest sample during the bursts
	RSSAfter     int64
	BurstLogged  map[string]int // the server's error log lines during the bursts, all rounds
	BurstSession int64          // Postgres sessions opened during the bursts, all rounds

	BurstCPU   cpuUse
	BurstWaits dbWaits // for a place in the server's line, in its median round

	// WideLine: the same burst on a second server, whose line has a place
	// for every connection (runs_line.go).
	WideLine      batch
	WideLineCPU   cpuUse
	WideLineWaits dbWaits

	// FloorBurst: the same burst on the floor, which makes the same
	// transactions a run as the server, around a wait of one round trip.
	FloorBurst    batch
	FloorBurstCPU cpuUse

	// CallingBurst: the same burst on the floor again, which calls the
	// provider as the server does instead of waiting.
	CallingBurst    batch
	CallingBurstCPU cpuUse
	CallingCalls    map[string]int

	// Each burst is taken once a round; the fields above hold each one's
	// median round, and these every round's total, in order.
	BurstTotals, WideLineTotals, FloorTotals, CallingTotals []time.Duration

	// The rounds before those measured, each burst's total, in order, and
	// the page faults of the process that served each burst, all rounds
	// in order, the warm-up rounds first (the two floors share a process).
	BurstWarmups, WideLineWarmups, FloorWarmups, CallingWarmups []time.Duration
	BurstFaults, WideLineFaults, FloorFaults, CallingFaults     []int64
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
	waitsBefore, err := readDBWaits(ctx, s.ours)
	if err != nil {
		return res, err
	}
	spent := startCPU(s.server.cmd.Process.Pid, s.db.name)
	warm := runBatch(ctx, cfg.WarmRuns, 1, func(ctx context.Context, _ int) error {
		return s.ours.startRun(ctx, agentID, "warm")
	})
	res.Warm, res.WarmCalls, res.WarmCPU = warm.series, fake.AllCalls(), spent()
	waitsAfter, err := readDBWaits(ctx, s.ours)
	if err != nil {
		return res, err
	}
	res.WarmWaits = waitsAfter.since(waitsBefore)
	logf("  warm run start: p50 %s p99 %s, %.2f provider calls a run", ms(res.Warm.quantile(.5)), ms(res.Warm.quantile(.99)),
		perRun(res.WarmCalls, res.Warm.requests()))
	if warm.errors > 0 {
		return res, fmt.Errorf("warm runs failed: %s", warm.errorSummary(3))
	}

	if res.FloorWarm, res.FloorWarmCPU, err = floorWarm(ctx, s, agentID, cfg.WarmRuns, "", "the floor's"); err != nil {
		return res, err
	}
	if res.CallingWarm, res.CallingWarmCPU, err = floorWarm(ctx, s, agentID, cfg.WarmRuns, callingPrefix, "the calling floor's"); err != nil {
		return res, err
	}
	if res.QuietTrips, err = measureQuietTrips(ctx, s.db.URL, cfg.WarmRuns, cfg.Latency); err != nil {
		return res, err
	}
	logf("  the floor's warm run start: p50 %s waiting, %s calling the provider; a round trip to Postgres: p50 %s back to back, %s after %s of quiet",
		ms(res.FloorWarm.quantile(.5)), ms(res.CallingWarm.quantile(.5)), ms(res.QuietTrips.BackToBack.quantile(.5)),
		ms(res.QuietTrips.AfterAPause.quantile(.5)), dur(cfg.Latency))

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

	// The bursts: every thread at once, on connections of their own, as
	// that many clients would. Ours and the two floors take turns, each
	// round begun by the next of them, so that a slower moment of the
	// shared machine falls on each alike; each is reported by its median
	// round. The warm-up rounds come first and are not counted: a young
	// process's first bursts bring the memory of its heap and its stacks
	// into use, a page fault a page, which a process that has served a
	// while has in use already; they also open the connections of the
	// server with a wide line, as the first runs did the server's.
	startOn := func(ctx context.Context, api api, i int) error { return api.startRun(ctx, agentID, thread(i)) }
	wide, wideAPI, err := s.startServerWithWideLine(ctx)
	if err != nil {
		return res, err
	}
	defer wide.stop()
	bursts := []*burstRounds{
		{name: "ours", take: func(ctx context.Context) (burstTake, error) {
			return oursBurst(ctx, s, fake, &res, cfg.Threads, startOn)
		}},
		{name: fmt.Sprintf("ours, %d statements at once,", lineAsWide), mustSucceed: true, take: func(ctx context.Context) (burstTake, error) {
			return serverBurst(ctx, s, wide, wideAPI, fake, cfg.Threads, startOn)
		}},
		{name: "the floor's", mustSucceed: true, take: func(ctx context.Context) (burstTake, error) {
			return floorBurst(ctx, s, fake, "", cfg.Threads, startOn), nil
		}},
		{name: "the floor's, calling the provider,", mustSucceed: true, take: func(ctx context.Context) (burstTake, error) {
			return floorBurst(ctx, s, fake, callingPrefix, cfg.Threads, startOn), nil
		}},
	}
	for round := range cfg.WarmupRounds + cfg.Rounds {
		warmup := round < cfg.WarmupRounds
		name := fmt.Sprintf("round %d", round-cfg.WarmupRounds+1)
		if warmup {
			name = fmt.Sprintf("warm-up round %d", round+1)
		}
		for k := range bursts {
			b := bursts[(round+k)%len(bursts)]
			pause(ctx)
			take, err := b.take(ctx)
			if err != nil {
				return res, err
			}
			if warmup {
				b.warmups = append(b.warmups, take)
			} else {
				b.takes = append(b.takes, take)
			}
			logf("  %s: %s %d runs at once: %s, %d failed, %.2f provider calls a run, %d page faults", name, b.name, cfg.Threads,
				take.total.Round(time.Millisecond), take.errors, perRun(take.calls, take.requests()+take.errors), take.faults)
			if b.mustSucceed && take.errors > 0 {
				return res, fmt.Errorf("%s burst failed: %s", b.name, take.errorSummary(3))
			}
		}
	}
	ours, wideLine, floor, calling := bursts[0].median(), bursts[1].median(), bursts[2].median(), bursts[3].median()
	res.Burst, res.BurstCPU, res.BurstCalls, res.BurstWaits = ours.batch, ours.cpu, ours.calls, ours.waits
	res.WideLine, res.WideLineCPU, res.WideLineWaits = wideLine.batch, wideLine.cpu, wideLine.waits
	res.FloorBurst, res.FloorBurstCPU = floor.batch, floor.cpu
	res.CallingBurst, res.CallingBurstCPU, res.CallingCalls = calling.batch, calling.cpu, calling.calls
	res.BurstTotals, res.WideLineTotals = bursts[0].totals(), bursts[1].totals()
	res.FloorTotals, res.CallingTotals = bursts[2].totals(), bursts[3].totals()
	res.BurstWarmups, res.WideLineWarmups = totals(bursts[0].warmups), totals(bursts[1].warmups)
	res.FloorWarmups, res.CallingWarmups = totals(bursts[2].warmups), totals(bursts[3].warmups)
	res.BurstFaults, res.WideLineFaults = bursts[0].faults(), bursts[1].faults()
	res.FloorFaults, res.CallingFaults = bursts[2].faults(), bursts[3].faults()
	logf("  %d runs at once, median of %d rounds: ours %s, the floor %s (ours / it %.2f×), the floor calling the provider %s (ours / it %.2f×); "+
		"ours with %d statements at once %s (/ the floor %.2f×)",
		cfg.Threads, cfg.Rounds, ms(ours.total), ms(floor.total), quotient(ours.total, floor.total),
		ms(calling.total), quotient(ours.total, calling.total), lineAsWide, ms(wideLine.total), quotient(wideLine.total, floor.total))
	return res, nil
}

// burstTake is one burst of run starts, what it cost and the provider
// calls it made.
type burstTake struct {
	batch
	cpu    cpuUse
	calls  map[string]int
	waits  dbWaits // a server's, for a place in its line
	faults int64   // the page faults its server (or floor) took meanwhile
}

// burstRounds are the takes of one kind of burst, a round each.
type burstRounds struct {
	name        string
	mustSucceed bool // a burst that must not fail: a floor's, or the wide line's
	take        func(ctx context.Context) (burstTake, error)
	warmups     []burstTake // of the warm-up rounds, not counted
	takes       []burstTake // of the measured rounds
}

// median is the take whose total is the median of the rounds' (the lower
// of the two middle ones when they are even).
func (b *burstRounds) median() burstTake {
	sorted := slices.SortedFunc(slices.Values(b.takes), func(x, y burstTake) int { return cmp.Compare(x.total, y.total) })
	return sorted[(len(sorted)-1)/2]
}

// totals are the measured rounds' totals, in the order they were taken.
func (b *burstRounds) totals() []time.Duration { return totals(b.takes) }

// faults are the page faults of every round, the warm-up rounds first.
func (b *burstRounds) faults() []int64 {
	var out []int64
	for _, t := range slices.Concat(b.warmups, b.takes) {
		out = append(out, t.faults)
	}
	return out
}

// totals are the takes' totals, in order.
func totals(takes []burstTake) []time.Duration {
	out := make([]time.Duration, len(takes))
	for i, t := range takes {
		out[i] = t.total
	}
	return out
}

// oursBurst starts a run on each of n threads at once on the server,
// watching its memory, its error log and its Postgres sessions meanwhile
// (gathered in res over the rounds).
func oursBurst(ctx context.Context, s *stack, fake *daytonatest.Server, res *runResults, n int,
	start func(ctx context.Context, api api, i int) error) (burstTake, error) {
	before, err := s.server.readMemory()
	if err != nil {
		return burstTake{}, err
	}
	if res.RSSBefore == 0 {
		res.RSSBefore = before.rss
	}
	s.server.takeErrorLines()
	stopWatching := s.server.watchMemory(5 * time.Millisecond)
	var take burstTake
	sessions, err := s.countSessions(ctx, func() {
		take, err = serverBurst(ctx, s, s.server, s.ours, fake, n, start)
	})
	res.RSSPeak = max(res.RSSPeak, stopWatching())
	if err != nil {
		return take, err
	}
	res.BurstSession += sessions
	if take.errors > 0 && res.BurstFailed == 0 {
		res.BurstAnswers = take.errorSummary(4)
	}
	res.BurstFailed += take.errors
	if res.BurstLogged == nil {
		res.BurstLogged = map[string]int{}
	}
	for line, count := range s.server.takeErrorLines() {
		res.BurstLogged[line] += count
	}
	if after, err := s.server.readMemory(); err == nil {
		res.RSSAfter = after.rss
	}
	return take, nil
}

// serverBurst starts a run on each of n threads at once on a server of
// the stack, p served at a, with what it cost and the waits for its line.
func serverBurst(ctx context.Context, s *stack, p *process, a api, fake *daytonatest.Server, n int,
	start func(ctx context.Context, api api, i int) error) (burstTake, error) {
	var take burstTake
	waitsBefore, err := readDBWaits(ctx, a)
	if err != nil {
		return take, err
	}
	burstAPI := a
	burstAPI.http = newHTTPClient(n)
	defer burstAPI.http.CloseIdleConnections()
	fake.ResetCalls()
	faulted := startFaults(p.cmd.Process.Pid)
	spent := startCPU(p.cmd.Process.Pid, s.db.name)
	take.batch = runBatch(ctx, n, n, func(ctx context.Context, i int) error { return start(ctx, burstAPI, i) })
	take.cpu, take.faults = spent(), faulted()
	take.calls = fake.AllCalls()
	waitsAfter, err := readDBWaits(ctx, a)
	if err != nil {
		return take, err
	}
	take.waits = waitsAfter.since(waitsBefore)
	return take, nil
}

// floorWarm starts n runs one at a time on the floor, at its routes under
// prefix, on the warm thread, after warmupRuns that are not timed, with
// the CPU they cost; whose names it in an error.
func floorWarm(ctx context.Context, s *stack, agentID string, n int, prefix, whose string) (series, cpuUse, error) {
	floorAPI := s.base
	floorAPI.base += prefix
	start := func(ctx context.Context, _ int) error { return floorAPI.startRun(ctx, agentID, "warm") }
	pause(ctx)
	if up := runBatch(ctx, warmupRuns, 1, start); up.errors > 0 {
		return series{}, cpuUse{}, fmt.Errorf("%s warm-up runs failed: %s", whose, up.errorSummary(3))
	}
	spent := startCPU(s.floor.cmd.Process.Pid, s.db.name)
	got := runBatch(ctx, n, 1, start)
	if got.errors > 0 {
		return series{}, cpuUse{}, fmt.Errorf("%s warm runs failed: %s", whose, got.errorSummary(3))
	}
	return got.series, spent(), nil
}

// floorBurst starts a run on each of n threads at once on the floor, at
// its routes under prefix.
func floorBurst(ctx context.Context, s *stack, fake *daytonatest.Server, prefix string, n int,
	start func(ctx context.Context, api api, i int) error) burstTake {
	floorAPI := s.base
	floorAPI.base += prefix
	floorAPI.http = newHTTPClient(n)
	defer floorAPI.http.CloseIdleConnections()
	fake.ResetCalls()
	faulted := startFaults(s.floor.cmd.Process.Pid)
	spent := startCPU(s.floor.cmd.Process.Pid, s.db.name)
	var take burstTake
	take.batch = runBatch(ctx, n, n, func(ctx context.Context, i int) error { return start(ctx, floorAPI, i) })
	take.cpu, take.faults = spent(), faulted()
	take.calls = fake.AllCalls()
	return take
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
