// Command bench measures the real server binary on Postgres, loaded from
// this process over loopback, against floors that show what the same work
// costs at least, and writes docs/benchmarks.md with its charts. It also
// runs the Go benchmarks of the hot paths (the *_bench_test.go files).
//
//	go run ./bench            # the full run (make bench)
//	go run ./bench -quick     # a short run, to check that everything works
//
// It needs the Postgres that the tests use (trust auth on 127.0.0.1:5432);
// it makes a database of its own for the run and drops it afterwards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
)

// config is what a run measures, and how long for.
type config struct {
	Out      string
	Postgres string
	Quick    bool

	Concurrency int           // workers of the closed loops (reads, writes)
	Warmup      time.Duration // of each closed loop, not recorded
	Window      time.Duration // recorded span of each closed loop
	Rounds      int           // ours and the floors alternate this many times

	// WarmupRounds of the runs started at once come before their Rounds,
	// not counted.
	WarmupRounds int

	Sandboxes       int           // registered before the reads are measured
	Latency         time.Duration // the fake provider's round trip
	WarmRuns        int           // measured warm run starts, one at a time
	Threads         int           // threads that start their runs at once
	ColdConcurrency int           // first runs of those threads in flight at a time
	ToolWorkers     int           // tool calls in flight of each way in the throughput loop
	Execd           string        // a real execd's address for the tool calls; empty: the fake's own
	PoolSize        int           // the warm pool of the burst of new threads
	PoolThreads     int           // new threads that start their first runs at once
	PoolBursts      int           // how many times they do, the pool refilled in between
	PoolCreate      time.Duration // how long the fake provider takes to create an instance
	LocalRuns       int           // local provider: pooled first runs, and warm runs, one at a time

	// Only names the phases to run (phaseNames); empty
	// runs them all. A partial run writes no report unless -out is given.
	Only       map[string]bool
	OutGiven   bool
	BenchTime  string // -benchtime of the Go benchmarks; "" skips them
	BenchCount int    // runs of each Go benchmark, of which the median is kept
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&c.Out, "out", "docs/benchmarks.md", "report to write (its charts go in a folder beside it, named after it)")
	fs.StringVar(&c.Postgres, "postgres", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
		"a Postgres database to connect to for creating (and dropping) the run's own database")
	fs.BoolVar(&c.Quick, "quick", false, "a short run with smaller numbers, to check that everything works")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "workers of the closed-loop loads")
	fs.DurationVar(&c.Warmup, "warmup", time.Second, "warm-up of each closed-loop load, not recorded")
	fs.DurationVar(&c.Window, "window", 5*time.Second, "recorded span of each closed-loop load")
	fs.IntVar(&c.Rounds, "rounds", 3, "how many times ours and the floors alternate on each read route and on the runs started at once")
	fs.IntVar(&c.WarmupRounds, "warmup-rounds", 4, "rounds of the runs started at once taken before those measured, not counted "+
		"(a young process's first bursts bring its memory into use; at least 1: the server with a wide line opens its connections in them)")
	fs.IntVar(&c.Sandboxes, "sandboxes", 50, "sandboxes registered for the reads")
	fs.DurationVar(&c.Latency, "latency", 20*time.Millisecond, "the fake provider's round trip")
	fs.IntVar(&c.WarmRuns, "warm-runs", 300, "warm run starts measured, one at a time")
	fs.IntVar(&c.Threads, "threads", 1000, "threads that start runs at once")
	fs.IntVar(&c.ColdConcurrency, "cold-concurrency", 8, "first runs in flight at a time while the threads get their instances")
	fs.StringVar(&c.Execd, "execd", "", "host:port of a running execd (OpenSandbox's daemon) that the tool calls go to, "+
		"through us and straight; empty: the OpenSandbox fake's own execd")
	fs.IntVar(&c.ToolWorkers, "tool-workers", 2, "tool calls in flight of each way (through us on each database, straight to execd) in the throughput loop")
	fs.IntVar(&c.PoolSize, "pool-size", 50, "pool.size of the sandbox whose new threads start at once")
	fs.IntVar(&c.PoolThreads, "pool-threads", 200, "new threads that start their first runs at once against the pool")
	fs.IntVar(&c.PoolBursts, "pool-bursts", 3, "bursts of new threads against the pool, each after the pool job refilled it")
	fs.DurationVar(&c.PoolCreate, "pool-create", 2*time.Second, "how long the fake provider takes to create an instance")
	fs.IntVar(&c.LocalRuns, "local-runs", 50, "local provider: pooled first runs, and warm runs, one at a time")
	fs.StringVar(&c.BenchTime, "benchtime", "200ms", `-benchtime of the Go benchmarks ("" skips them)`)
	fs.IntVar(&c.BenchCount, "benchcount", 3, "runs of each Go benchmark; the median is reported")
	only := fs.String("only", "", "run only these phases, comma-separated: "+strings.Join(phaseNames, ", ")+" "+
		"(the report is then written only to an -out given explicitly)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	fs.Visit(func(f *flag.Flag) { c.OutGiven = c.OutGiven || f.Name == "out" })
	if *only != "" {
		c.Only = map[string]bool{}
		for _, name := range strings.Split(*only, ",") {
			name = strings.TrimSpace(name)
			if !slices.Contains(phaseNames, name) {
				err := fmt.Errorf("-only: unknown phase %q (phases: %s)", name, strings.Join(phaseNames, ", "))
				fmt.Fprintln(fs.Output(), "bench:", err)
				return c, err
			}
			c.Only[name] = true
		}
	}
	if c.Quick {
		// Smaller numbers, for the flags not given explicitly.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		quick := map[string]string{"warmup": "300ms", "window": "1s", "rounds": "1", "warmup-rounds": "1",
			"warm-runs": "50", "threads": "200", "benchtime": "50ms", "benchcount": "1",
			"pool-size": "10", "pool-threads": "40", "pool-bursts": "1", "local-runs": "5", "tool-workers": "1"}
		for name, value := range quick {
			if !set[name] {
				_ = fs.Set(name, value)
			}
		}
	}
	if c.Concurrency < 1 || c.Rounds < 1 || c.WarmupRounds < 1 || c.Sandboxes < 1 || c.WarmRuns < 1 || c.Threads < 1 || c.ColdConcurrency < 1 || c.BenchCount < 1 ||
		c.ToolWorkers < 1 || c.PoolSize < 1 || c.PoolThreads < 1 || c.PoolBursts < 1 || c.LocalRuns < 1 {
		err := errors.New("counts must be at least 1")
		fmt.Fprintln(fs.Output(), "bench:", err)
		return c, err
	}
	return c, nil
}

// phaseNames are the phases -only can pick.
var phaseNames = []string{"reads", "toolcalls", "runs", "pools", "local", "writes", "gobench"}

// runs tells whether the phase is part of this run.
func (c config) runs(phase string) bool { return c.Only == nil || c.Only[phase] }

func main() {
	if len(os.Args) > 1 && os.Args[1] == "floor" {
		if err := floorMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		os.Exit(2) // the flag set has said why
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// logf tells the person waiting what the bench is doing.
func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
