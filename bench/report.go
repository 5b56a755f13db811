package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/bench/internal/svgchart"
	"github.com/auxilia/sandboxes/pkg/store"
)

// writeReport writes the markdown report to path and its charts to a
// folder beside it named after it (docs/benchmarks.md → docs/benchmarks/).
func writeReport(path string, r results) error {
	dir := strings.TrimSuffix(path, filepath.Ext(path))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w := &reportWriter{dir: dir}
	w.header(r)
	w.summary(r)
	for _, section := range []struct {
		phase string
		write func(results)
	}{{"reads", w.reads}, {"toolcalls", w.toolCalls}, {"runs", w.runs}, {"pools", w.pools}, {"local", w.local},
		{"writes", w.writes}, {"gobench", w.goBench}} {
		if r.Config.runs(section.phase) {
			section.write(r)
		} else {
			w.p("*(%s: not measured in this run, `-only`)*\n", section.phase)
		}
	}
	w.timings(r)
	if w.err != nil {
		return w.err
	}
	return os.WriteFile(path, []byte(w.b.String()+keptSection(path)), 0o644)
}

// Sections measured by other means are kept as they were when the report
// is rewritten: fuzzing comes from `make fuzz-long`, the warm pools' figures
// from their Go benchmarks in pkg/run (`go test -bench 'RunStart|PoolBurst'`),
// whose ratios and counts the hot-path table does not show, and the local
// isolations' from pkg/provider/local's (`go test -bench Isolation`), which
// need root and runsc, and OpenSandbox's glob from pkg/run's (`go test -bench
// OpenSandboxGlob`), a comparison the hot-path table does not draw.
var keptSections = [][2]string{
	{"<!-- pools -->", "<!-- /pools -->"},
	{"<!-- isolation -->", "<!-- /isolation -->"},
	{"<!-- search -->", "<!-- /search -->"},
	{"<!-- fuzzing -->", "<!-- /fuzzing -->"},
}

func keptSection(path string) string {
	old, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var out strings.Builder
	for _, marks := range keptSections {
		start := strings.Index(string(old), marks[0])
		end := strings.Index(string(old), marks[1])
		if start >= 0 && end >= start {
			out.WriteString("\n" + string(old[start:end+len(marks[1])]) + "\n")
		}
	}
	return out.String()
}

type reportWriter struct {
	b   strings.Builder
	dir string
	err error // the first chart that could not be written
}

func (w *reportWriter) p(format string, args ...any) { fmt.Fprintf(&w.b, format+"\n", args...) }

func (w *reportWriter) chart(name, alt string, c svgchart.Chart) {
	link, err := writeChart(w.dir, name, c)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.p("![%s](%s)\n", alt, link)
}

func (w *reportWriter) header(r results) {
	c, m := r.Config, r.Machine
	w.p("# Benchmarks\n")
	w.p("<!-- Written by the bench tool (bench/): run `make bench` to measure again and rewrite this file and its charts. -->\n")
	w.p("Measured on %s UTC; the run took %s.", r.Started.Format("2006-01-02 15:04"), minutes(r.Took))
	if c.Quick {
		w.p("This was a **quick run** (`-quick`): short windows and a smaller burst, to check that the tool works; its figures are rough.")
	}
	w.p("Absolute times are this machine's; the ratios against the floors are the point.\n")
	w.p("| machine | |\n|---|---|")
	w.p("| CPU | %s, %d logical CPUs |", m.CPU, m.CPUs)
	w.p("| memory | %s |", m.Memory)
	w.p("| system | %s |", m.Kernel)
	w.p("| Go | %s |", m.Go)
	w.p("| Postgres | %s, on loopback |", m.Postgres)
	w.p("| load average when the run began | %s (1, 5, 15 min) |\n", m.LoadAvg)

	w.p("## How to rerun\n")
	w.p("```sh\nmake bench              # go run ./bench: the full run, rewrites this file\ngo run ./bench -quick   # a short run, to check that everything works\ngo run ./bench -only reads,runs -out /tmp/b.md   # some phases alone\ngo run ./bench -h       # the knobs: concurrency, windows, rounds, latency, threads, …\n```\n")
	w.p("It needs the Postgres that `make test` uses (127.0.0.1:5432, trust auth); it creates a database of its own for the run and drops it afterwards.\n")

	w.p("## How it measures\n")
	w.p("- **The server** is the real binary, built with `go build ./cmd/auxilia` and started as `auxilia serve` on Postgres, " +
		"with `AUXILIA_LOCAL_PROVIDER=off`, a fresh key in `AUXILIA_SECRET_KEYS` and an admin token from `AUXILIA_BOOTSTRAP_TOKEN`; " +
		"every other setting is at its default. It listens on a free loopback port and migrates the run's database itself. " +
		"A second server, the same binary with the same settings but no `DATABASE_URL` and its local provider on, keeps its data " +
		"in its **embedded SQLite database** in a data folder of the run's, as a first install does (sections 2 and 6).")
	w.p("- **The load** comes from the bench process, over loopback, with keep-alive connections. A *closed loop*: %d workers, "+
		"each sending its next request as soon as its last is answered; the first %s is a warm-up and is not recorded, then "+
		"requests are recorded for %s (for reads, %d such rounds each of ours and of the floor, alternating which goes first). "+
		"Throughput is answered requests ÷ recorded time; p50 and p99 are nearest-rank percentiles of the recorded requests.",
		c.Concurrency, dur(c.Warmup), dur(c.Window), c.Rounds)
	w.p("- **The floors** are what the same work costs at least: for reads, and for the runs started at once, a bare `net/http` handler " +
		"sending the server's SQL through pgx; for runs one at a time, the provider's round trips; for a tool call, the same call " +
		"straight to the provider's daemon; for a pooled start inside a burst, a warm start alone, and the same bursts through " +
		"bare pgx; for the local provider's pooled first run, its warm start. The floor's process collects garbage at Go's " +
		"default (GOGC 100), the server at its own (GOGC 400, `cmd/auxilia/gc.go`): a setting of the server's, as its framework " +
		"and its SQL are.")
	w.p("- The client, the server, the floor and Postgres share the machine's CPUs, so a figure includes the others' work on them.\n")
}

func (w *reportWriter) reads(r results) {
	rd := r.Reads
	w.p("## 1. Reads: ours against a bare handler\n")
	w.p("%d sandboxes are registered (OpenSandbox, Daytona and Cloud Run in turn, each with a secret and a config). "+
		"**The floor** is a bare `net/http` handler, in a process of its own, that sends the same SQL the server's store sends "+
		"(the token by its SHA-256, its workspace, the sandboxes; and the token's last use at most once a minute) through "+
		"pgx to the same database, and writes the same JSON (one sandbox's with its warm pool, off: the floor reads the pool's size "+
		"from the config). Its answers were compared with the server's before the load: "+
		"**%d answers, byte for byte identical**. Its pgx pool holds %d connections, one per worker; the server's pool "+
		"is as large as its `AUXILIA_DB_MAX_CONNECTIONS` default, of which it runs its `AUXILIA_DB_STATEMENTS_AT_ONCE` default "+
		"(%d here) at once. The server shares a token's reads among the requests that "+
		"carry it at once (`pkg/token/shared.go`); the floor reads the token for each request.\n",
		rd.Sandboxes, rd.Compared, r.Config.Concurrency, store.DefaultStatementsAtOnce())
	w.p("| route | | requests | throughput | p50 | p99 | CPU a request: process | : Postgres | Postgres sessions opened |\n|---|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, c := range []comparison{rd.List, rd.Get} {
		oursCPU, oursPG := c.OursCPU.perRequest(c.Ours)
		floorCPU, floorPG := c.FloorCPU.perRequest(c.Floor)
		w.p("| `%s` | ours | %d | %.0f/s | %s | %s | %s | %s | %d |", c.Route, c.Ours.requests(), c.Ours.throughput(),
			ms(c.Ours.quantile(.5)), ms(c.Ours.quantile(.99)), micros(oursCPU), micros(oursPG), c.OursSessions)
		w.p("| | floor | %d | %.0f/s | %s | %s | %s | %s | %d |", c.Floor.requests(), c.Floor.throughput(),
			ms(c.Floor.quantile(.5)), ms(c.Floor.quantile(.99)), micros(floorCPU), micros(floorPG), c.FloorSessions)
		w.p("| | **ours / floor** | | **%s** | **%s** | **%s** | **%s** | **%s** | |",
			ratio(c.Ours.throughput(), c.Floor.throughput()),
			ratio(float64(c.Ours.quantile(.5)), float64(c.Floor.quantile(.5))),
			ratio(float64(c.Ours.quantile(.99)), float64(c.Floor.quantile(.99))),
			ratio(float64(oursCPU), float64(floorCPU)), ratio(float64(oursPG), float64(floorPG)))
	}
	w.p("")
	w.p("A throughput ratio under 1 and latency ratios over 1 are what the server's framework, ORM and middleware cost. " +
		"*Postgres sessions opened* counts the connections the process opened to the database while it was measured " +
		"(`pg_stat_database.sessions`, approximate): a pool that keeps its connections opens none. " +
		"*CPU a request* is the CPU time (user and system, from `/proc`) that the process serving the route, and the " +
		"Postgres backends serving the run's database together (other databases' sessions on the same Postgres left out), spent while the requests were recorded, divided by the requests: what each side costs " +
		"the machine, apart from the client's share.\n")
	w.chart("reads-list.svg", "Latency distribution of GET /api/v1/sandboxes, ours against the floor",
		percentileChart(fmt.Sprintf("GET /api/v1/sandboxes (%d sandboxes), %d workers", rd.Sandboxes, r.Config.Concurrency),
			[]svgchart.Line{percentileLine("ours", oursColour, rd.List.Ours), percentileLine("floor (net/http + pgx)", floorColour, rd.List.Floor)}))
	w.chart("reads-get.svg", "Latency distribution of GET /api/v1/sandboxes/{id}, ours against the floor",
		percentileChart(fmt.Sprintf("GET /api/v1/sandboxes/{id}, %d workers", r.Config.Concurrency),
			[]svgchart.Line{percentileLine("ours", oursColour, rd.Get.Ours), percentileLine("floor (net/http + pgx)", floorColour, rd.Get.Floor)}))
}

func (w *reportWriter) runs(r results) {
	rn := r.Runs
	lat := rn.Latency
	w.p("## 3. Warm run start\n")
	w.p("The provider is the Daytona fake (`pkg/provider/daytona/daytonatest`) served by the bench process on loopback, "+
		"with **%s added to every call** (`Options.Latency`), registered as a Daytona sandbox and bound to an agent. "+
		"On one thread, %d runs warm up (the first makes the thread's instance); then %d runs are started on it "+
		"one after the other (`POST /api/v1/agents/{id}/threads/{thread}/runs`), each reconnecting the live instance. "+
		"**The floor** is one provider round trip, %s. Provider calls are the fake's own counts.\n", dur(lat), warmupRuns, rn.Warm.requests(), dur(lat))
	warmPer := perRun(rn.WarmCalls, rn.Warm.requests())
	warmProc, warmPG := rn.WarmCPU.perRequest(rn.Warm)
	w.p("| starts | runs | p50 | mean | p99 | provider calls a run | p50 / floor | p50 − floor | CPU a run: its process | : Postgres | a place in the server's line held, mean |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	w.p("| **ours** | %d | %s | %s | %s | %.2f (%s) | **%s** | %s | %s | %s | %s |", rn.Warm.requests(), ms(rn.Warm.quantile(.5)), ms(rn.Warm.mean()),
		ms(rn.Warm.quantile(.99)), warmPer, callList(rn.WarmCalls), ratio(float64(rn.Warm.quantile(.5)), float64(lat)),
		ms(rn.Warm.quantile(.5)-lat), micros(warmProc), micros(warmPG), ms(rn.WarmWaits.meanHold()))
	for _, f := range []struct {
		name string
		s    series
		cpu  cpuUse
	}{{"the floor, waiting the provider's latency out", rn.FloorWarm, rn.FloorWarmCPU}, {"the floor, calling the provider", rn.CallingWarm, rn.CallingWarmCPU}} {
		proc, pg := f.cpu.perRequest(f.s)
		w.p("| %s | %d | %s | %s | %s | | %s | %s | %s | %s | |", f.name, f.s.requests(), ms(f.s.quantile(.5)), ms(f.s.mean()),
			ms(f.s.quantile(.99)), ratio(float64(f.s.quantile(.5)), float64(lat)), ms(f.s.quantile(.5)-lat), micros(proc), micros(pg))
	}
	w.p("")
	w.p("*p50 − floor* is the server's own work in a warm start: authenticating, then one round trip that reads the thread's " +
		"live instance, the agent with its binding and its sandbox (three statements sent together) before the provider call, and " +
		"after it the one round trip that records the run on the thread's row with its audit entry (three statements sent " +
		"together, one transaction). *A place held* is the mean time a statement (or a round trip of them) kept its place in the " +
		"server's line for a database connection, from its turn to its answer read (`auxilia_db_line_held_seconds_total` over " +
		"`auxilia_db_line_places_taken_total` at `/metrics`): alone, about the database's own time.\n")
	w.p("**The floor's warm starts** are as many, one at a time on the same thread, on the bare `net/http` handler of "+
		"section 4 (`bench/floor_runs.go`), which makes the same round trips through pgx: the token's read, the start's view, "+
		"the provider's round trip and the run's record. It takes the provider's round trip two ways: as a wait of its "+
		"latency, what the provider costs if reaching it costs nothing, and as the server's own call (`GET /sandbox/{id}` "+
		"to the fake). Their *p50 − floor* is what this machine charges anyone for those round trips; ours over the calling "+
		"floor's is **%s**.\n",
		ratio(float64(rn.Warm.quantile(.5)), float64(rn.CallingWarm.quantile(.5))))
	q := rn.QuietTrips
	w.p("What a round trip costs depends on what came before it. The record's comes after the provider's, a wait in which " +
		"neither the server nor Postgres had anything to do; the bench times a round trip to Postgres (`SELECT 1` on one pgx " +
		"connection) back to back and after such a wait:\n")
	w.p("| a round trip to Postgres | trips | p50 | p99 |\n|---|--:|--:|--:|")
	w.p("| back to back | %d | %s | %s |", q.BackToBack.requests(), micros(q.BackToBack.quantile(.5)), micros(q.BackToBack.quantile(.99)))
	w.p("| each after %s of quiet | %d | %s | %s |\n", dur(q.Pause), q.AfterAPause.requests(), micros(q.AfterAPause.quantile(.5)),
		micros(q.AfterAPause.quantile(.99)))
	w.chart("runs-warm.svg", "Latency distribution of a warm run start against one provider round trip",
		percentileChart(fmt.Sprintf("Warm run start, one at a time (provider round trip %s)", dur(lat)),
			[]svgchart.Line{percentileLine("ours", oursColour, rn.Warm),
				percentileLine("the floor, calling the provider", floorColour, rn.CallingWarm),
				percentileLine("the floor, waiting", secondFloorColour, rn.FloorWarm)},
			svgchart.Rule{At: msFloat(lat), Label: "floor: one provider round trip"}))

	w.p("## 4. %d threads start runs at once\n", rn.Threads)
	w.p("First, %d threads of the agent get their instances: each thread's first run, %d in flight at a time "+
		"(a probe, the create and the work folder: three round trips):\n", rn.Threads, rn.ColdConcurrency)
	coldPer := perRun(rn.ColdCalls, rn.Cold.requests())
	coldFloor := time.Duration(coldPer*float64(rn.Threads)/float64(rn.ColdConcurrency)) * lat
	w.p("| first runs | in flight | total | floor | total / floor | p50 | p99 | failed | provider calls a run |\n|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	w.p("| %d | %d | %s | %s | **%s** | %s | %s | %d | %.2f (%s) |\n", rn.Cold.requests()+rn.Cold.errors, rn.ColdConcurrency,
		ms(rn.Cold.total), ms(coldFloor), ratio(float64(rn.Cold.total), float64(coldFloor)),
		ms(rn.Cold.quantile(.5)), ms(rn.Cold.quantile(.99)), rn.Cold.errors, coldPer, callList(rn.ColdCalls))
	w.p("The floor there is runs × provider calls a run × %s ÷ runs in flight.\n", dur(lat))

	burstFloor := time.Duration(float64(rn.Threads) * float64(lat) / float64(rn.Threads))
	fb, cb := rn.FloorBurst, rn.CallingBurst
	w.p("Then **all %d threads start a run at the same moment**, each from its own connection (a gate releases them together), "+
		"each reconnecting its live instance. Ours, ours with a wider line, and three floors; all but the provider's take turns, %d rounds "+
		"after %d warm-up rounds that are not counted, each round begun by the next of them, so that a slower moment of the shared machine "+
		"falls on each alike. Each column of the table is its median round, by total; every round's total is in its last rows.\n",
		rn.Threads, r.Config.Rounds, r.Config.WarmupRounds)
	w.p("- **The reachable floor** is the same burst, through the same gate on connections of their own, on a bare `net/http` "+
		"handler in the floor's process that makes the server's transactions of a warm run start through pgx "+
		"(`bench/floor_runs.go`): the token; one round trip, the server's three reads sent together, of the thread's live "+
		"instance (unlocked), the agent with its binding and its sandbox; "+
		"the provider round trip, here a wait of %s; one round trip, the server's three statements sent together as one "+
		"transaction, that records the run on the thread's row (locking it), ends the thread's active run, inserts the new run "+
		"and the audit entry, each start's in round trips of its own, where the server sends the views, and the records, of the "+
		"starts that come at once together, each batch in one round trip (`pkg/store/together.go`). Its pgx pool holds as many "+
		"connections as the server's (%d), "+
		"and runs as many at once; the server runs %d at once "+
		"(its `AUXILIA_DB_STATEMENTS_AT_ONCE` default), the others waiting in line. It starts runs on the same threads.",
		dur(lat), floorRunConns, store.DefaultStatementsAtOnce())
	w.p("- **The reachable floor, calling the provider** is that floor again, whose provider round trip is the call the " +
		"server's Daytona client makes to reconnect an instance (`GET /sandbox/{id}`, its answer decoded) to the same fake, through " +
		"a client made as the server's are (`provider.NewHTTPClient`, as many connections kept alive), instead of a wait " +
		"(`bench/floor_provider.go`). The wait leaves out what reaching the provider costs, the fake's work included, which shares " +
		"the machine; this floor pays it as the server does. The goal is set against the floor that waits.")
	w.p("- **Ours, %d statements at once** is a second server, the same binary on the same database, whose line has a place for "+
		"each of its %d connections (`AUXILIA_DB_STATEMENTS_AT_ONCE=%d`, `bench/runs_line.go`), so that it runs as many statements "+
		"at once as the floor. It opens its connections in the warm-up rounds, as the first runs opened the server's. "+
		"A statement holds its place for its whole round trip, its wait for the server's processors included: in a burst that keeps "+
		"every processor busy, a narrow line leaves the database idle between them, and a wide one shares it among more statements, "+
		"each taking longer (§5).", lineAsWide, store.DefaultMaxConnections, lineAsWide)
	w.p("- **The provider's floor** is %d × one round trip ÷ %d in flight = %s: what the burst would take if the database cost nothing; "+
		"no program that records the runs can reach it.\n", rn.Threads, rn.Threads, ms(burstFloor))
	w.p("The server's memory is its resident set (`VmRSS` in `/proc`), sampled every 5 ms.\n")
	wl := rn.WideLine
	w.p("| %d threads at once | ours | ours, %d statements at once | reachable floor | reachable floor, calling the provider |\n|---|--:|--:|--:|--:|",
		rn.Threads, lineAsWide)
	w.p("| runs that succeeded | %d | %d | %d | %d |", rn.Burst.requests(), wl.requests(), fb.requests(), cb.requests())
	w.p("| runs that failed, all rounds | %d | %d | %d | %d |", rn.BurstFailed, wl.errors, fb.errors, cb.errors)
	w.p("| total, to the last answer | %s | %s | %s | %s |", ms(rn.Burst.total), ms(wl.total), ms(fb.total), ms(cb.total))
	w.p("| p50, p99 of the runs that succeeded | %s, %s | %s, %s | %s, %s | %s, %s |", ms(rn.Burst.quantile(.5)), ms(rn.Burst.quantile(.99)),
		ms(wl.quantile(.5)), ms(wl.quantile(.99)), ms(fb.quantile(.5)), ms(fb.quantile(.99)), ms(cb.quantile(.5)), ms(cb.quantile(.99)))
	w.p("| **total / reachable floor** | **%s** | %s | | |", ratio(float64(rn.Burst.total), float64(fb.total)),
		ratio(float64(wl.total), float64(fb.total)))
	w.p("| total / reachable floor, calling the provider | %s | %s | %s | |", ratio(float64(rn.Burst.total), float64(cb.total)),
		ratio(float64(wl.total), float64(cb.total)), ratio(float64(fb.total), float64(cb.total)))
	burstProc, burstPG := rn.BurstCPU.perRequest(rn.Burst.series)
	wideProc, widePG := rn.WideLineCPU.perRequest(wl.series)
	floorProc, floorPG := rn.FloorBurstCPU.perRequest(fb.series)
	callingProc, callingPG := rn.CallingBurstCPU.perRequest(cb.series)
	w.p("| CPU a run: the server (or the floor), Postgres | %s, %s | %s, %s | %s, %s | %s, %s |", micros(burstProc), micros(burstPG),
		micros(wideProc), micros(widePG), micros(floorProc), micros(floorPG), micros(callingProc), micros(callingPG))
	w.p("| statements that waited for a place in the server's line; their mean wait | %s | %s | | |",
		lineWaits(rn.BurstWaits, rn.Burst), lineWaits(rn.WideLineWaits, wl))
	w.p("| places taken in the server's line; a place held, mean | %s | %s | | |", lineHolds(rn.BurstWaits), lineHolds(rn.WideLineWaits))
	w.p("| total / the provider's floor (%s, unreachable) | %s | %s | %s | %s |", ms(burstFloor),
		ratio(float64(rn.Burst.total), float64(burstFloor)), ratio(float64(wl.total), float64(burstFloor)),
		ratio(float64(fb.total), float64(burstFloor)), ratio(float64(cb.total), float64(burstFloor)))
	w.p("| provider calls | %d (%.2f a run) | | | %d (%.2f a run) |", totalCalls(rn.BurstCalls), perRun(rn.BurstCalls, rn.Threads),
		totalCalls(rn.CallingCalls), perRun(rn.CallingCalls, rn.Threads))
	w.p("| server RSS before the first round → peak → after the last | %s → %s → %s | | | |", mib(rn.RSSBefore), mib(rn.RSSPeak), mib(rn.RSSAfter))
	w.p("| Postgres sessions opened, all rounds | %d | | | |", rn.BurstSession)
	w.p("| every round's total | %s | %s | %s | %s |", msList(rn.BurstTotals), msList(rn.WideLineTotals), msList(rn.FloorTotals),
		msList(rn.CallingTotals))
	w.p("| the warm-up rounds' totals, not counted | %s | %s | %s | %s |", msList(rn.BurstWarmups), msList(rn.WideLineWarmups),
		msList(rn.FloorWarmups), msList(rn.CallingWarmups))
	w.p("| page faults of the server (or the floor's process) in each burst, warm-up rounds first | %s | %s | %s | %s |\n",
		countList(rn.BurstFaults), countList(rn.WideLineFaults), countList(rn.FloorFaults), countList(rn.CallingFaults))
	w.p("The warm-up rounds are there because a process's first bursts bring its memory into use. A burst of %d starts has as many "+
		"requests in flight, each with its goroutine's stack and what it allocates, and each page the process has not held before costs "+
		"a page fault, which the kernel serves by clearing the page (minor faults, counted in `/proc/<pid>/stat`). The server collects "+
		"its garbage at GOGC 400, so its heap grows through several bursts before a collection lets it reuse its pages, and a collection "+
		"in the middle of a burst, which finds that burst's requests alive, lets it grow further; the last row shows how many each burst "+
		"still took. A server that has served such bursts has that memory in use: the measured rounds come closer to it.\n", rn.Threads)
	w.p("The line's waits and places are the server's own count at `/metrics` (`auxilia_db_line_waits_total`, `auxilia_db_line_wait_seconds_total`, " +
		"`auxilia_db_line_places_taken_total`, `auxilia_db_line_held_seconds_total`) over the median round: a run start sends two round trips " +
		"to the database, its reads and its record, each holding a place from its turn until its answer is read, and the views, and " +
		"the records, of starts that come at once share round trips and their places; in a burst that keeps " +
		"every processor busy, the hold takes in the wait for a processor, against the one of a run alone in §3.\n")
	if rn.BurstFailed > 0 {
		w.p("What the first of the failed runs were answered: %s.\n", rn.BurstAnswers)
	}
	if len(rn.BurstLogged) > 0 {
		w.p("What the server logged as errors meanwhile: %s.\n", logSummary(rn.BurstLogged, 4))
	}
	w.chart("runs-burst.svg", "Runs answered over time when every thread starts a run at once",
		completionChart(fmt.Sprintf("%d threads start runs at once (provider round trip %s)", rn.Threads, dur(lat)), burstFloor,
			completion{rn.Burst, "runs answered (ours)", oursColour},
			completion{wl, fmt.Sprintf("ours, %d statements at once", lineAsWide), secondColour},
			completion{fb, "reachable floor (net/http + pgx)", floorColour},
			completion{cb, "reachable floor, calling the provider", secondFloorColour}))
}

// lineHolds is how many places in the server's line were taken, and how
// long one was held on average.
func lineHolds(w dbWaits) string {
	if w.Taken == 0 {
		return "0"
	}
	return fmt.Sprintf("%d; %s", w.Taken, ms(w.meanHold()))
}

// lineWaits is how many statements of a burst waited for a place in the
// server's line, how many a run, and their mean wait.
func lineWaits(w dbWaits, b batch) string {
	if w.Count == 0 {
		return "0"
	}
	runs := b.requests() + b.errors
	return fmt.Sprintf("%d (%.2f a run); %s", w.Count, float64(w.Count)/float64(max(runs, 1)), ms(w.Duration/time.Duration(w.Count)))
}

func (w *reportWriter) writes(r results) {
	wr := r.Writes
	w.p("## 7. Creating and editing sandboxes\n")
	w.p("`POST /api/v1/sandboxes` registers an OpenSandbox sandbox with a secret and a config; `PATCH /api/v1/sandboxes/{id}` "+
		"changes the description, config and secret of the sandboxes the creates made (each worker edits its own share of them, "+
		"in turn). Both validate the whole sandbox "+
		"(twice: the registry, then the store's save hook), seal the secret with AES-256-GCM and write the row and its audit "+
		"entry in one transaction. %d workers, closed loop.\n", r.Config.Concurrency)
	w.p("| request | requests | throughput | p50 | p99 | Postgres sessions opened |\n|---|--:|--:|--:|--:|--:|")
	for _, x := range []struct {
		name     string
		s        series
		sessions int64
	}{{"`POST /api/v1/sandboxes`", wr.Create, wr.CreateSessions}, {"`PATCH /api/v1/sandboxes/{id}`", wr.Patch, wr.PatchSessions}} {
		w.p("| %s | %d | **%.0f/s** | %s | %s | %d |", x.name, x.s.requests(), x.s.throughput(),
			ms(x.s.quantile(.5)), ms(x.s.quantile(.99)), x.sessions)
	}
	w.p("")
	w.chart("writes.svg", "Latency distributions of creating and editing a sandbox",
		percentileChart(fmt.Sprintf("Create and edit a sandbox, %d workers", r.Config.Concurrency),
			[]svgchart.Line{percentileLine("create (POST)", oursColour, wr.Create), percentileLine("edit (PATCH)", secondColour, wr.Patch)}))
}

func (w *reportWriter) goBench(r results) {
	w.p("## 8. Hot paths (`go test -bench`)\n")
	if len(r.GoBench) == 0 {
		w.p("Not run (`-benchtime \"\"`).\n")
		return
	}
	median := ""
	if r.Config.BenchCount > 1 {
		median = fmt.Sprintf("; of each benchmark's %d runs, the median is shown", r.Config.BenchCount)
	}
	w.p("The benchmarks beside the code they measure (`*_bench_test.go`), run with `go test -run '^$' -bench . -benchmem -benchtime %s -count %d`, "+
		"one package at a time, after the server has stopped%s.\n", r.Config.BenchTime, r.Config.BenchCount, median)
	w.p("| package | benchmark | time/op | throughput | bytes/op | allocs/op |\n|---|---|--:|--:|--:|--:|")
	var failed []goBenchPackage
	for _, pkg := range r.GoBench {
		if pkg.Failure != "" && len(pkg.Benchmarks) == 0 {
			failed = append(failed, pkg)
			continue
		}
		for _, b := range pkg.Benchmarks {
			mbs := ""
			if b.MBPerSec > 0 {
				mbs = fmt.Sprintf("%.0f MB/s", b.MBPerSec)
			}
			w.p("| `%s` | `%s` | %s | %s | %d | %d |", pkg.Path, b.Name, nsPerOp(b.NsPerOp), mbs, b.BytesPerOp, b.AllocsPerOp)
		}
	}
	w.p("")
	for _, pkg := range failed {
		w.p("`%s` did not run:\n\n```\n%s\n```\n", pkg.Path, pkg.Failure)
	}
}

func (w *reportWriter) timings(r results) {
	w.p("## Duration of the run\n")
	w.p("| phase | took |\n|---|--:|")
	for _, name := range append([]string{"build", "start"}, phaseNames...) {
		if name == "gobench" {
			name = "go benchmarks"
		}
		if d, ok := r.PhaseDur[name]; ok {
			w.p("| %s | %s |", name, d.Round(100*time.Millisecond))
		}
	}
	w.p("| **all** | **%s** |", minutes(r.Took))
}

// minutes renders a run's length: "2 min 29 s".
func minutes(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}

// dur renders a setting: "20 ms", "5 s".
func dur(d time.Duration) string {
	switch {
	case d >= time.Second && d%(100*time.Millisecond) == 0:
		return fmt.Sprintf("%g s", d.Seconds())
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	default:
		return ms(d)
	}
}

// callList names the provider operations called, with their counts.
func callList(calls map[string]int) string {
	var parts []string
	for _, op := range slices.Sorted(maps.Keys(calls)) {
		parts = append(parts, fmt.Sprintf("%s %d", op, calls[op]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func logSummary(lines map[string]int, limit int) string {
	s := series{errKinds: lines}
	return s.errorSummary(limit)
}

func nsPerOp(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.0f ns", ns)
	}
}
