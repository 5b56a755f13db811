package run_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// The provider of the pool benchmarks: 20 ms a call, and a create that
// takes 2 s, as a real provider's image pull and start would.
const (
	benchCallLatency = 20 * time.Millisecond
	benchCreateTime  = 2 * time.Second
)

type benchWorld struct {
	app   *app.App
	db    *store.DB
	ws    auxilia.Workspace
	agent auxilia.Agent
	sb    auxilia.Sandbox
}

func newBenchWorld(b *testing.B, config string) benchWorld {
	b.Helper()
	ctx := context.Background()
	db := storetest.Open(b, store.Postgres)
	keys, err := secret.ParseKeys(secret.NewKey())
	if err != nil {
		b.Fatal(err)
	}
	fake := providertest.NewFake(b.TempDir())
	fake.SetLatency(benchCallLatency)
	fake.OnCreate(func(ctx context.Context) {
		select {
		case <-time.After(benchCreateTime - benchCallLatency):
		case <-ctx.Done():
		}
	})
	a := app.New(db, keys, app.Options{DataDir: b.TempDir(), Kinds: []provider.Kind{fake}})
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	must(b, err)
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Fake", Provider: "fake", Config: []byte(config)})
	must(b, err)
	ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Bench"})
	must(b, err)
	_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
	must(b, err)
	return benchWorld{app: a, db: db, ws: ws, agent: ag, sb: sb}
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

func (w benchWorld) start(b *testing.B, thread string) auxilia.Run {
	r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, thread)
	must(b, err)
	return r
}

// BenchmarkRunStart compares a warm run start (the thread's instance is
// live), a new thread's first run served by a ready pool, and the same
// first run without a pool. Run with a fixed count: the pool is filled
// (outside the timer) with one instance per run.
func BenchmarkRunStart(b *testing.B) {
	b.Run("warm", func(b *testing.B) {
		w := newBenchWorld(b, `{}`)
		w.start(b, "warm")
		b.ResetTimer()
		for range b.N {
			w.start(b, "warm")
		}
	})
	b.Run("first_run_pooled", func(b *testing.B) {
		w := newBenchWorld(b, fmt.Sprintf(`{"pool":{"size":%d}}`, b.N))
		_, err := w.app.Runs.KeepPools(context.Background())
		must(b, err)
		b.ResetTimer()
		for i := range b.N {
			if r := w.start(b, fmt.Sprintf("t%d", i)); r.Created {
				b.Fatal("the pool did not serve the run")
			}
		}
	})
	b.Run("first_run_no_pool", func(b *testing.B) {
		w := newBenchWorld(b, `{}`)
		b.ResetTimer()
		for i := range b.N {
			w.start(b, fmt.Sprintf("t%d", i))
		}
	})
}

// BenchmarkPoolBurst starts 200 new threads at once against a pool of 50,
// after timing warm starts one at a time in the same world: how many the
// pool served, the p50 and p99 of the pooled and the unpooled starts, the
// pooled p50 as a multiple of the warm start's, and how often and how long
// the starts waited for one of the store's connections.
func BenchmarkPoolBurst(b *testing.B) {
	const threads, size, warmStarts = 200, 50, 20
	for n := range b.N {
		b.StopTimer()
		w := newBenchWorld(b, fmt.Sprintf(`{"pool":{"size":%d}}`, size))
		warm := make([]time.Duration, warmStarts+1)
		for i := range warm {
			start := time.Now()
			w.start(b, "warm")
			warm[i] = time.Since(start)
		}
		warm = warm[1:] // the first made the instance
		_, err := w.app.Runs.KeepPools(context.Background())
		must(b, err)
		sqlDB, err := w.db.SQL()
		must(b, err)
		before := sqlDB.Stats()
		b.StartTimer()
		took := make([]time.Duration, threads)
		served := make([]bool, threads)
		var wg sync.WaitGroup
		for i := range threads {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				r := w.start(b, fmt.Sprintf("b%d-%d", n, i))
				took[i], served[i] = time.Since(start), !r.Created
			}()
		}
		wg.Wait()
		b.StopTimer()
		after := sqlDB.Stats()
		var pooled, unpooled []time.Duration
		for i, s := range served {
			if s {
				pooled = append(pooled, took[i])
			} else {
				unpooled = append(unpooled, took[i])
			}
		}
		b.ReportMetric(float64(len(pooled)), "served_from_pool")
		b.ReportMetric(quantileMS(pooled, .5), "pooled_p50_ms")
		b.ReportMetric(quantileMS(pooled, .99), "pooled_p99_ms")
		b.ReportMetric(quantileMS(unpooled, .5), "unpooled_p50_ms")
		b.ReportMetric(quantileMS(unpooled, .99), "unpooled_p99_ms")
		b.ReportMetric(quantileMS(warm, .5), "warm_alone_p50_ms")
		b.ReportMetric(quantileMS(pooled, .5)/quantileMS(warm, .5), "pooled_p50_per_warm")
		b.ReportMetric(float64(after.WaitCount-before.WaitCount), "db_conn_waits")
		b.ReportMetric(float64((after.WaitDuration - before.WaitDuration).Milliseconds()), "db_conn_wait_ms")
		b.StartTimer()
	}
}

// quantileMS is the nearest-rank q-quantile of ds, in milliseconds.
func quantileMS(ds []time.Duration, q float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	sorted := append([]time.Duration(nil), ds...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	return float64(sorted[int(q*float64(len(sorted)-1))].Microseconds()) / 1000
}
