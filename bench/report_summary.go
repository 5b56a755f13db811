package main

import (
	"fmt"
	"time"
)

// The goals, each a ratio or a margin against its floor.
const (
	pooledBurstGoal = 2.0  // pooled p50 in a burst ÷ a warm start's p50 alone, at most
	warmStartGoal   = 1.2  // warm start p50 ÷ one provider round trip, at most
	burstGoal       = 1.25 // 1000 runs at once ÷ the reachable floor, at most
	readGoal        = 0.9  // one sandbox's read throughput ÷ the floor's, at least
	localPoolGoal   = 1.2  // local pooled first run p50 ÷ its warm start p50, at most
)

// summaryRow is one figure of the summary: its goal, what was measured and
// whether the goal was met.
type summaryRow struct {
	figure, goal, measured string
	met                    *bool // nil: not measured
}

func (w *reportWriter) summary(r results) {
	w.p("## Summary\n")
	w.p("Each figure against its floor, measured in this run; the sections below say how.\n")
	w.p("| figure | goal | measured | met |\n|---|---|---|---|")
	for _, row := range summaryRows(r) {
		met := "not measured"
		if row.met != nil {
			met = map[bool]string{true: "**yes**", false: "**no**"}[*row.met]
		}
		w.p("| %s | %s | %s | %s |", row.figure, row.goal, row.measured, met)
	}
	w.p("")
}

func summaryRows(r results) []summaryRow {
	c := r.Config
	var rows []summaryRow
	add := func(phase, figure, goal string, measured func() (string, bool)) {
		row := summaryRow{figure: figure, goal: goal, measured: "–"}
		if c.runs(phase) {
			text, ok := measured()
			row.measured, row.met = text, &ok
		}
		rows = append(rows, row)
	}
	toolCall := func(l toolCallLoad) (string, bool) {
		ours, direct := l.Alone.quantile(.5), r.ToolCalls.Direct.Alone.quantile(.5)
		return fmt.Sprintf("p50 **%s vs %s** (%s)", ms(ours), ms(direct), signedMS(ours-direct)), ours-direct <= toolCallGoal
	}
	add("toolcalls", fmt.Sprintf("`execute(%s)` through us vs straight to execd, embedded database (§2)", toolCommand),
		"≤ direct + "+dur(toolCallGoal), func() (string, bool) { return toolCall(r.ToolCalls.Embedded) })
	add("toolcalls", fmt.Sprintf("`execute(%s)` through us vs straight to execd, Postgres (§2)", toolCommand),
		"≤ direct + "+dur(toolCallGoal), func() (string, bool) { return toolCall(r.ToolCalls.Postgres) })
	add("pools", fmt.Sprintf("a new thread's first run from a ready pool, while %d new threads start at once (`pool.size` %d) (§5)",
		c.PoolThreads, c.PoolSize), fmt.Sprintf("p50 ≤ %g× a warm start alone", pooledBurstGoal), func() (string, bool) {
		p := r.Pools
		x := quotient(p.Pooled.quantile(.5), p.WarmAlone.quantile(.5))
		floor := quotient(p.FloorPooled.quantile(.5), p.FloorWarmAlone.quantile(.5))
		measured := fmt.Sprintf("**%.2f×** (p50 %s pooled, %s alone; p99 %s); the floor through bare pgx: %.2f×", x,
			ms(p.Pooled.quantile(.5)), ms(p.WarmAlone.quantile(.5)), ms(p.Pooled.quantile(.99)), floor)
		return measured, p.Pooled.requests() > 0 && x <= pooledBurstGoal
	})
	add("runs", fmt.Sprintf("warm run start vs one provider round trip (%s) (§3)", dur(c.Latency)), fmt.Sprintf("≤ %g×", warmStartGoal),
		func() (string, bool) {
			x := quotient(r.Runs.Warm.quantile(.5), c.Latency)
			calling := r.Runs.CallingWarm.quantile(.5)
			return fmt.Sprintf("**%.2f×** (p50 %s); the floor through bare pgx, calling the provider too: %.2f× (p50 %s)", x,
				ms(r.Runs.Warm.quantile(.5)), quotient(calling, c.Latency), ms(calling)), x <= warmStartGoal
		})
	add("runs", fmt.Sprintf("%d runs at once vs the reachable floor (§4)", c.Threads), fmt.Sprintf("≤ %g×", burstGoal),
		func() (string, bool) {
			x := quotient(r.Runs.Burst.total, r.Runs.FloorBurst.total)
			calling := quotient(r.Runs.Burst.total, r.Runs.CallingBurst.total)
			wide := quotient(r.Runs.WideLine.total, r.Runs.FloorBurst.total)
			return fmt.Sprintf("**%.2f×** (%s vs %s); against the floor that calls the provider too: %.2f×; "+
				"with %d statements at once, as the floor: %.2f×", x,
				ms(r.Runs.Burst.total), ms(r.Runs.FloorBurst.total), calling, lineAsWide, wide), x <= burstGoal
		})
	add("reads", "`GET /sandboxes/{id}` vs a bare pgx handler, throughput (§1)", fmt.Sprintf("≥ %g×", readGoal),
		func() (string, bool) {
			g := r.Reads.Get
			x := g.Ours.throughput() / max(g.Floor.throughput(), 1e-9)
			return fmt.Sprintf("**%.2f×** (%.0f/s vs %.0f/s)", x, g.Ours.throughput(), g.Floor.throughput()), x >= readGoal
		})
	localRow := summaryRow{figure: "pooled first run vs warm start on the local provider, one at a time (§6)",
		goal: fmt.Sprintf("≤ %g×", localPoolGoal), measured: "–"}
	if c.runs("local") && r.Local.Failure == "" {
		l := r.Local
		x := quotient(l.Pooled.quantile(.5), l.Warm.quantile(.5))
		ok := l.Served > 0 && x <= localPoolGoal
		localRow.measured = fmt.Sprintf("**%.2f×** (%s vs %s)", x, ms(l.Pooled.quantile(.5)), ms(l.Warm.quantile(.5)))
		localRow.met = &ok
	}
	return append(rows, localRow)
}

// quotient is a/b, or 0 when b is 0.
func quotient(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
