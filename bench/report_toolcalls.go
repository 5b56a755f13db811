package main

import (
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/bench/internal/svgchart"
)

// toolCallGoal is the goal for a tool call: the provider's call plus this.
const toolCallGoal = 4 * time.Millisecond

func (w *reportWriter) toolCalls(r results) {
	tc := r.ToolCalls
	w.p("## 2. A tool call: `execute(%s)` through us against straight to the provider's daemon\n", toolCommand)
	daemon := "whose execd answers `POST /command` as the real execd does (the command really runs, in a bubblewrap jail, and the stream " +
		"is held open a second after the command ends, as execd's is)"
	if r.Config.Execd != "" {
		daemon = "whose sandboxes' execd endpoint names **a real execd** (OpenSandbox's `components/execd`, built from its source, " +
			"running on loopback, given with `-execd`): every command goes to it, through us and straight"
	}
	w.p("The provider is the OpenSandbox fake (`pkg/provider/opensandbox/opensandboxtest`) served by the bench process on loopback, "+
		"%s. **Through us** is the tool call route an integrator uses, "+
		"`POST /api/v1/runs/{run_id}/execute`, on a run started on a thread (the answer read whole), its sandbox set to reach execd at its endpoint (`use_server_proxy: false`), as the direct calls do; **straight to execd** is the same "+
		"`POST /command`, with the body the server's client sends, to the sandbox's execd endpoint, its events read up to the one "+
		"that ends the command, where the server's client stops reading too. The server runs twice: on its **embedded database** "+
		"(SQLite in its data folder, no `DATABASE_URL`, as a first install) and on Postgres. The three ways take turns request "+
		"by request (a worker's next request goes the next way), so that a busy machine's drift falls on each alike: one worker "+
		"(each call alone: latency), then %d workers (%d of each way in flight, on average: throughput), closed loop, each recorded for %s after its warm-up.\n",
		daemon, 3*tc.Workers, tc.Workers, dur(r.Config.Window*time.Duration(r.Config.Rounds)))
	w.p("| | in flight | requests | throughput | p50 | p99 | p50 − straight | CPU a request: server | : Postgres |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, load := range []struct {
		inFlight string
		pick     func(toolCallLoad) toolCallSide
	}{{"1", func(l toolCallLoad) toolCallSide { return l.Alone }}, {fmt.Sprintf("%d (%d a way)", 3*tc.Workers, tc.Workers), func(l toolCallLoad) toolCallSide { return l.Loaded }}} {
		base := load.pick(tc.Direct).quantile(.5)
		for _, way := range []struct {
			name     string
			l        toolCallLoad
			server   bool // a server between: its CPU is shown
			postgres bool
		}{{"straight to execd", tc.Direct, false, false}, {"through us, embedded database", tc.Embedded, true, false},
			{"through us, Postgres", tc.Postgres, true, true}} {
			side := load.pick(way.l)
			proc, pg := side.CPU.perRequest(side.series)
			procText, pgText, diff := "–", "–", "–"
			if way.server {
				procText, diff = micros(proc), signedMS(side.quantile(.5)-base)
			}
			if way.postgres {
				pgText = micros(pg)
			}
			w.p("| %s | %s | %d | %.0f/s | %s | %s | %s | %s | %s |", way.name, load.inFlight, side.requests(), side.throughput(),
				ms(side.quantile(.5)), ms(side.quantile(.99)), diff, procText, pgText)
		}
	}
	w.p("")
	w.p("*p50 − straight* is what the server adds to the provider's call, against the goal of %s; on the embedded database it "+
		"is **%s**, on Postgres **%s**. *CPU a request* is the server's own, and that of the Postgres backends serving the run's database "+
		"(the fake and its jails run in the bench process and its children, for every way alike). On Postgres a tool call commits **%.1f transactions** and writes **%.1f rows** "+
		"(`pg_stat_database`'s `xact_commit`, and `tup_inserted` + `tup_updated` + `tup_deleted`, over %d calls made one after the other, "+
		"less the counts of as long a time with no calls, the server's background jobs': approximate); the fake saw %s.\n",
		dur(toolCallGoal), signedMS(tc.Embedded.Alone.quantile(.5)-tc.Direct.Alone.quantile(.5)),
		signedMS(tc.Postgres.Alone.quantile(.5)-tc.Direct.Alone.quantile(.5)), tc.Commits, tc.Rows, tc.Counted, callList(tc.Calls))
	lines := func(pick func(toolCallLoad) toolCallSide) []svgchart.Line {
		return []svgchart.Line{percentileLine("straight to execd", floorColour, pick(tc.Direct).series),
			percentileLine("through us, embedded database", oursColour, pick(tc.Embedded).series),
			percentileLine("through us, Postgres", secondColour, pick(tc.Postgres).series)}
	}
	w.chart("toolcalls-alone.svg", "Latency distribution of a tool call, one at a time, through us and straight to execd",
		percentileChart(fmt.Sprintf("execute(%s), one worker", toolCommand), lines(func(l toolCallLoad) toolCallSide { return l.Alone })))
	w.chart("toolcalls-loaded.svg", "Latency distribution of a tool call under load, through us and straight to execd",
		percentileChart(fmt.Sprintf("execute(%s), %d of each way in flight", toolCommand, tc.Workers),
			lines(func(l toolCallLoad) toolCallSide { return l.Loaded })))
}

// signedMS renders a difference of durations with its sign: "+3.21 ms".
func signedMS(d time.Duration) string {
	if d < 0 {
		return "−" + ms(-d)
	}
	return "+" + ms(d)
}
