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
	w.p("The provider is the OpenSandbox fake (`pkg/provider/opensandbox/opensandboxtest`) served by the bench process on loopback, "+
		"whose execd answers `POST /command` as the real execd does (the command really runs, in a bubblewrap jail, and the stream "+
		"is held open a second after the command ends, as execd's is). **Through us** is the tool call route an integrator uses, "+
		"`POST /api/v1/runs/{run_id}/execute`, on a run started on a thread (the answer read whole); **straight to execd** is the same "+
		"`POST /command`, with the body the server's client sends, to the sandbox's execd endpoint, its events read up to the one "+
		"that ends the command, where the server's client stops reading too. The server runs twice: on its **embedded database** "+
		"(SQLite in its data folder, no `DATABASE_URL`, as a first install) and on Postgres. Each is loaded by one worker "+
		"(latency), then by %d (throughput), closed loop.\n", tc.Workers)
	w.p("| | workers | requests | throughput | p50 | p99 | p50 − straight | CPU a request: server | : Postgres |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	row := func(name string, workers int, s series, cpu cpuUse, base series) {
		proc, pg := cpu.perRequest(s)
		procText := micros(proc)
		if name == "straight to execd" {
			procText = "–" // no server between
		}
		w.p("| %s | %d | %d | %.0f/s | %s | %s | %s | %s | %s |", name, workers, s.requests(), s.throughput(),
			ms(s.quantile(.5)), ms(s.quantile(.99)), signedMS(s.quantile(.5)-base.quantile(.5)), procText, micros(pg))
	}
	for _, x := range []struct {
		name string
		l    toolCallLoad
	}{{"straight to execd", tc.Direct}, {"through us, embedded database", tc.Embedded}, {"through us, Postgres", tc.Postgres}} {
		row(x.name, 1, x.l.Alone, x.l.AloneCPU, tc.Direct.Alone)
	}
	for _, x := range []struct {
		name string
		l    toolCallLoad
	}{{"straight to execd", tc.Direct}, {"through us, embedded database", tc.Embedded}, {"through us, Postgres", tc.Postgres}} {
		row(x.name, tc.Workers, x.l.Loaded, x.l.LoadedCPU, tc.Direct.Loaded)
	}
	w.p("")
	w.p("*p50 − straight* is what the server adds to the provider's call, against the goal of %s; on the embedded database it "+
		"is **%s**, on Postgres **%s**. *CPU a request* is the server's own (the fake and its jails run in the bench process and "+
		"its children, on both sides alike). On Postgres a tool call commits **%.1f transactions** (`pg_stat_database.xact_commit` "+
		"over %d calls made one after the other, the server's background jobs included, so approximate); the fake saw %s.\n",
		ms(toolCallGoal), signedMS(tc.Embedded.Alone.quantile(.5)-tc.Direct.Alone.quantile(.5)),
		signedMS(tc.Postgres.Alone.quantile(.5)-tc.Direct.Alone.quantile(.5)), tc.Commits, tc.Counted, callList(tc.Calls))
	lines := func(pick func(toolCallLoad) series) []svgchart.Line {
		return []svgchart.Line{percentileLine("straight to execd", floorColour, pick(tc.Direct)),
			percentileLine("through us, embedded database", oursColour, pick(tc.Embedded)),
			percentileLine("through us, Postgres", secondColour, pick(tc.Postgres))}
	}
	w.chart("toolcalls-alone.svg", "Latency distribution of a tool call, one at a time, through us and straight to execd",
		percentileChart(fmt.Sprintf("execute(%s), one worker", toolCommand), lines(func(l toolCallLoad) series { return l.Alone })))
	w.chart("toolcalls-loaded.svg", "Latency distribution of a tool call under load, through us and straight to execd",
		percentileChart(fmt.Sprintf("execute(%s), %d workers", toolCommand, tc.Workers), lines(func(l toolCallLoad) series { return l.Loaded })))
}

// signedMS renders a difference of durations with its sign: "+3.21 ms".
func signedMS(d time.Duration) string {
	if d < 0 {
		return "−" + ms(-d)
	}
	return "+" + ms(d)
}
