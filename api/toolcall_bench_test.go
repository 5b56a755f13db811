package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// BenchmarkToolCall is `execute` of `echo hi` through the whole handler
// (middleware, authentication, the run's checks, the provider's client, the
// meter) against the same command sent by the provider's client alone, on
// the OpenSandbox fake over loopback: the difference is what a tool call
// costs the server. statements/op counts what it sends to the database
// (its meter included, written after the answer). BENCH_EXECD=host:port
// sends the commands to an execd running there (the real one) instead of
// the fake's own, which runs each in a jail.
func BenchmarkToolCall(b *testing.B) {
	for _, d := range []store.Dialect{store.SQLite, store.Postgres} {
		b.Run(string(d), func(b *testing.B) { benchmarkToolCall(b, d) })
	}
}

func benchmarkToolCall(b *testing.B, d store.Dialect) {
	ctx := context.Background()
	db := storetest.Open(b, d)
	statements := db.CountStatements()
	a, e, issued := benchServer(b, db)
	fake := opensandboxtest.New(b, opensandboxtest.Options{CompletionHold: -1, Execd: os.Getenv("BENCH_EXECD")})
	call := func(method, path string, body any) []byte {
		raw, _ := json.Marshal(body)
		req := httptest.NewRequest(method, path, bytes.NewReader(raw))
		req.Header.Set("Authorization", "Bearer "+issued.Value)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			b.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		return rec.Body.Bytes()
	}
	var sb, agent, run struct{ ID string }
	_ = json.Unmarshal(call("POST", "/api/v1/sandboxes", map[string]any{"name": "OpenSandbox (fake)", "provider": "opensandbox", "url": fake.URL,
		"config": map[string]any{"use_server_proxy": false}}), &sb)
	_ = json.Unmarshal(call("POST", "/api/v1/agents", map[string]any{"name": "Bench agent"}), &agent)
	call("PUT", "/api/v1/agents/"+agent.ID+"/sandbox", map[string]any{"sandbox_id": sb.ID})
	_ = json.Unmarshal(call("POST", "/api/v1/agents/"+agent.ID+"/threads/bench/runs", nil), &run)

	b.Run("through_us", func(b *testing.B) {
		statements.Store(0)
		fake.ResetCalls()
		for b.Loop() {
			call("POST", "/api/v1/runs/"+run.ID+"/execute", map[string]any{"command": "echo hi"})
		}
		if err := a.Runs.FlushMeters(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(statements.Load())/float64(b.N), "statements/op")
		b.ReportMetric(float64(fake.TotalCalls())/float64(b.N), "provider_calls/op")
	})
	b.Run("direct", func(b *testing.B) {
		client, _, err := a.Sandboxes.Client(ctx, issued.Token.WorkspaceID, sb.ID)
		if err != nil {
			b.Fatal(err)
		}
		inst, err := client.Create(ctx, provider.Labels{Workspace: issued.Token.WorkspaceID, Sandbox: sb.ID, Thread: "direct", Instance: "direct"})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := client.Execute(ctx, inst, provider.ExecRequest{Command: "echo hi", Timeout: time.Minute}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
