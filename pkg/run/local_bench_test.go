package run_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// BenchmarkLocalRunStart compares, on the local provider and the embedded
// database, one start at a time: a warm run start (the thread's instance is
// live) and a new thread's first run served by a ready pool, whose claim
// reconnects and relabels the instance side by side; each with the mean
// time of its provider calls. Run with a fixed count: the pool is filled
// (outside the timer) with one instance per run.
func BenchmarkLocalRunStart(b *testing.B) {
	b.Run("warm", func(b *testing.B) {
		w, calls := newLocalBenchWorld(b, `{}`)
		w.start(b, "warm")
		calls.reset()
		b.ResetTimer()
		for range b.N {
			w.start(b, "warm")
		}
		calls.report(b)
	})
	b.Run("first_run_pooled", func(b *testing.B) {
		w, calls := newLocalBenchWorld(b, fmt.Sprintf(`{"pool":{"size":%d}}`, b.N))
		_, err := w.app.Runs.KeepPools(context.Background())
		must(b, err)
		calls.reset()
		b.ResetTimer()
		for i := range b.N {
			if r := w.start(b, fmt.Sprintf("t%d", i)); r.Created {
				b.Fatal("the pool did not serve the run")
			}
		}
		calls.report(b)
	})
}

// providerCalls times the provider's calls by operation.
type providerCalls struct {
	auxilia.NoMetrics
	mu    sync.Mutex
	took  map[string]time.Duration
	count map[string]int
}

func (p *providerCalls) ProviderCalled(_, op, _ string, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.took[op] += took
	p.count[op]++
}

func (p *providerCalls) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.took, p.count = map[string]time.Duration{}, map[string]int{}
}

// report gives the mean time of each operation called.
func (p *providerCalls) report(b *testing.B) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for op, took := range p.took {
		b.ReportMetric(float64(took.Microseconds())/1000/float64(p.count[op]), op+"_ms")
	}
}

func newLocalBenchWorld(b *testing.B, config string) (benchWorld, *providerCalls) {
	b.Helper()
	ctx := context.Background()
	db := storetest.Open(b, store.SQLite)
	keys, err := secret.ParseKeys(secret.NewKey())
	must(b, err)
	dataDir := b.TempDir()
	localtest.Seed(b, dataDir)
	calls := &providerCalls{}
	calls.reset()
	a := app.New(db, keys, app.Options{DataDir: dataDir, Metrics: calls})
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	must(b, err)
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Local", Provider: "local", Config: []byte(config)})
	must(b, err)
	ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Bench"})
	must(b, err)
	_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
	must(b, err)
	return benchWorld{app: a, db: db, ws: ws, agent: ag, sb: sb}, calls
}
