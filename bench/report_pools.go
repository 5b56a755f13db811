package main

import (
	"fmt"

	"github.com/auxilia/sandboxes/bench/internal/svgchart"
	"github.com/auxilia/sandboxes/pkg/store"
)

func (w *reportWriter) pools(r results) {
	pl := r.Pools
	w.p("## 5. A pooled start inside a burst of new threads\n")
	w.p("The provider is the Daytona fake with **%s added to every call** and **creates that take %s** (`Options.CreateDelay`, "+
		"as a provider pulling an image and starting a container), registered with a warm pool of **`pool.size` %d**. "+
		"The server's pool job filled it (%d ready, %s after the sandbox was registered; the bench polls `GET /api/v1/sandboxes/{id}` "+
		"until its pool says `ready`). Then %d warm run starts are timed one at a time on a thread whose instance is live: "+
		"**the goal's yardstick, a warm start alone**. Then **%d new threads start their first run at the same moment**, each "+
		"from its own connection (the gate of section 4): as many as the pool holds are served by it (the run's `sandbox.created` "+
		"is false), the others create their instances. **This is done %d times**, each time once the pool job has refilled the "+
		"pool, so that one burst's luck on a machine shared with Postgres and the bench does not make the figure; the table holds "+
		"all of them together. **Then the floor takes the same bursts**, as many, each once the pool is full again: the floor "+
		"(section 3) does a pooled start's round trips through bare pgx on a pool as large as the server's (the view's, with "+
		"the claim's one statement once it knows the agent's pool, as the server's, a wait of the provider's latency, the record's) and refuses at once the starts the pool cannot serve, "+
		"where the server creates their instances: in its bursts it does less than the server.\n",
		dur(pl.Latency), dur(pl.Create), pl.Size, pl.ReadyBefore, ms(pl.Filled), warmAloneRuns, pl.Threads, len(pl.Bursts))
	warmProc, warmPG := pl.WarmCPU.perRequest(pl.WarmAlone)
	burstProc, burstPG := pl.BurstCPU.perRequest(pl.Burst)
	w.p("| starts | runs | p50 | p99 | p50 / warm alone | CPU a run: server | : Postgres |\n|---|--:|--:|--:|--:|--:|--:|")
	warm50 := float64(pl.WarmAlone.quantile(.5))
	w.p("| warm, alone | %d | %s | %s | 1× | %s | %s |", pl.WarmAlone.requests(), ms(pl.WarmAlone.quantile(.5)),
		ms(pl.WarmAlone.quantile(.99)), micros(warmProc), micros(warmPG))
	w.p("| **in the burst, served by the pool** | %d | %s | %s | **%s** | %s | %s |", pl.Pooled.requests(), ms(pl.Pooled.quantile(.5)),
		ms(pl.Pooled.quantile(.99)), ratio(float64(pl.Pooled.quantile(.5)), warm50), micros(burstProc), micros(burstPG))
	w.p("| in the burst, creating their instance | %d | %s | %s | %s | | |", pl.Unpooled.requests(), ms(pl.Unpooled.quantile(.5)),
		ms(pl.Unpooled.quantile(.99)), ratio(float64(pl.Unpooled.quantile(.5)), warm50))
	floorWarm50 := float64(pl.FloorWarmAlone.quantile(.5))
	w.p("| the floor: warm, alone | %d | %s | %s | 1× | | |", pl.FloorWarmAlone.requests(), ms(pl.FloorWarmAlone.quantile(.5)),
		ms(pl.FloorWarmAlone.quantile(.99)))
	w.p("| the floor: in its bursts, served by the pool | %d | %s | %s | %s | | |", pl.FloorPooled.requests(),
		ms(pl.FloorPooled.quantile(.5)), ms(pl.FloorPooled.quantile(.99)), ratio(float64(pl.FloorPooled.quantile(.5)), floorWarm50))
	w.p("")
	w.p("The bursts' CPU a run is the whole bursts', pooled and created starts together, divided by their %d runs.\n", pl.Burst.requests())
	w.p("| burst | served by the pool: p50 | p99 | warm alone before it: p50 | p50 / warm alone | the floor's: p50 / warm alone |\n|--:|--:|--:|--:|--:|--:|")
	for i, b := range pl.Bursts {
		floor := "–"
		if i < len(pl.FloorBursts) {
			f := pl.FloorBursts[i]
			floor = fmt.Sprintf("%s (%s vs %s)", ratio(float64(f.Pooled.quantile(.5)), float64(f.WarmAlone.quantile(.5))),
				ms(f.Pooled.quantile(.5)), ms(f.WarmAlone.quantile(.5)))
		}
		w.p("| %d | %s | %s | %s | %s | %s |", i+1, ms(b.Pooled.quantile(.5)), ms(b.Pooled.quantile(.99)), ms(b.WarmAlone.quantile(.5)),
			ratio(float64(b.Pooled.quantile(.5)), float64(b.WarmAlone.quantile(.5))), floor)
	}
	w.p("")
	w.p("| during the bursts, all together | |\n|---|--:|")
	w.p("| waits for a place in line for the server's %d database connections, %d statements at once (`auxilia_db_line_waits_total` + `go_sql_wait_count_total` at `/metrics`) | %d |",
		pl.DBWaits.MaxOpen, store.DefaultStatementsAtOnce(), pl.DBWaits.Count)
	w.p("| time spent waiting for them, all statements together (`auxilia_db_line_wait_seconds_total` + `go_sql_wait_duration_seconds_total`) | %s |", ms(pl.DBWaits.Duration))
	w.p("| places taken in that line, and a place held, mean (`auxilia_db_line_places_taken_total`, `auxilia_db_line_held_seconds_total`) | %s |", lineHolds(pl.DBWaits))
	w.p("| samples of `pg_stat_activity` (every %s) that found a session waiting for a lock | %d of %d |", dur(pl.Locks.Interval), pl.Locks.Waiting, pl.Locks.Samples)
	w.p("| the most sessions waiting for a lock at once | %d |", pl.Locks.Most)
	w.p("| provider calls | %s |", callList(pl.BurstCalls))
	w.p("")
	if len(pl.BurstLogged) > 0 {
		w.p("What the server logged as errors meanwhile: %s.\n", logSummary(pl.BurstLogged, 4))
	}
	w.chart("pools-burst.svg", "Latency distributions of pooled and created first runs in a burst, and of a warm start alone",
		percentileChart(fmt.Sprintf("%d new threads at once, pool.size %d (creates take %s)", pl.Threads, pl.Size, dur(pl.Create)),
			[]svgchart.Line{percentileLine("warm start, alone", floorColour, pl.WarmAlone),
				percentileLine("in the burst, served by the pool", oursColour, pl.Pooled),
				percentileLine("in the burst, creating", secondColour, pl.Unpooled),
				percentileLine("the floor in its bursts, served by the pool", secondFloorColour, pl.FloorPooled)}))
}

func (w *reportWriter) local(r results) {
	lc := r.Local
	w.p("## 6. The local provider: a pooled first run against a warm start\n")
	if lc.Failure != "" {
		w.p("Not measured in this run: %s.\n", lc.Failure)
		return
	}
	w.p("On the server on its embedded database, where the local provider is on (bubblewrap jails on this machine), a local "+
		"sandbox with a warm pool of %d. After the pool is ready, %d warm run starts on one thread (a reconnect of its live instance) "+
		"and %d new threads' first runs (a claim from the pool, then its relabel and reconnect) take turns, one at a time, so that "+
		"what drifts on the machine meanwhile (the pool's refills among it) falls on both alike; "+
		"**%d of %d** were served by the pool.\n", lc.Runs, lc.Warm.requests(), lc.Runs, lc.Served, lc.Runs)
	warmProc, _ := lc.WarmCPU.perRequest(lc.Warm)
	poolProc, _ := lc.PoolCPU.perRequest(lc.Pooled)
	w.p("| run start | runs | p50 | p99 | p50 / warm | CPU a run: server | : Postgres |\n|---|--:|--:|--:|--:|--:|--:|")
	w.p("| warm (reconnect) | %d | %s | %s | 1× | %s | – |", lc.Warm.requests(), ms(lc.Warm.quantile(.5)), ms(lc.Warm.quantile(.99)),
		micros(warmProc))
	w.p("| **first run from the pool** | %d | %s | %s | **%s** | %s | – |\n", lc.Pooled.requests(), ms(lc.Pooled.quantile(.5)),
		ms(lc.Pooled.quantile(.99)), ratio(float64(lc.Pooled.quantile(.5)), float64(lc.Warm.quantile(.5))), micros(poolProc))
	w.p("The server's CPU is its own process's, not that of the jails it starts; on its embedded database it uses no Postgres.\n")
	w.chart("local-pool.svg", "Latency distributions of a local pooled first run and of a local warm start",
		percentileChart(fmt.Sprintf("Local provider, one at a time (pool.size %d)", lc.Runs),
			[]svgchart.Line{percentileLine("warm start", floorColour, lc.Warm), percentileLine("first run from the pool", oursColour, lc.Pooled)}))
}
