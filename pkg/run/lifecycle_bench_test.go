package run_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/require"
)

// BenchmarkThreadLifecycle times a run start on a thread whose instance is
// warm, paused (the start resumes it) and gone with its files kept (the
// start restores them), against the echo fake with 20 ms a call.
func BenchmarkThreadLifecycle(b *testing.B) {
	ctx := context.Background()
	db := storetest.Open(b, store.SQLite)
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(b, err)
	srv := echotest.NewServer(b)
	srv.Latency = 20 * time.Millisecond
	var ahead atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	a := app.New(db, keys, app.Options{DataDir: b.TempDir(), Kinds: []provider.Kind{echotest.Kind{}}, Run: run.Options{Clock: clock}})
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	require.NoError(b, err)
	config, _ := json.Marshal(map[string]any{"idle_minutes": 1, "keep_files": "always"})
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Echo", Provider: "echo", URL: srv.URL, Secret: &srv.Token, Config: config})
	require.NoError(b, err)
	agent, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
	require.NoError(b, err)
	_, err = a.Agents.Bind(ctx, ws.ID, agent.ID, sb.ID, nil, nil, nil)
	require.NoError(b, err)
	start := func(b *testing.B, thread string) auxilia.Run {
		r, err := a.Runs.Start(ctx, ws.ID, agent.ID, thread)
		require.NoError(b, err)
		return r
	}
	idle := func(b *testing.B) {
		ahead.Add(int64(2 * time.Minute))
		_, err := a.Runs.Idle(ctx)
		require.NoError(b, err)
	}

	b.Run("warm", func(b *testing.B) {
		start(b, "warm")
		b.ResetTimer()
		for b.Loop() {
			start(b, "warm")
		}
	})
	b.Run("resume_paused", func(b *testing.B) {
		start(b, "paused")
		for b.Loop() {
			b.StopTimer()
			idle(b)
			b.StartTimer()
			start(b, "paused")
		}
	})
	b.Run("restore_kept", func(b *testing.B) {
		start(b, "kept")
		for b.Loop() {
			b.StopTimer()
			idle(b)
			thread, err := a.Runs.Thread(ctx, ws.ID, agent.ID, "kept")
			require.NoError(b, err)
			srv.Vanish(thread.Instance.ProviderRef)
			b.StartTimer()
			if r := start(b, "kept"); r.Notice == "" {
				b.Fatal("the start did not restore the kept files")
			}
		}
	})
}
