package run_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/faultproxy"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/echotest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/require"
)

// A provider that accepts connections and never answers (a fault proxy in
// front of it blackholes them) holds up its own idle threads only: another
// workspace's idle thread, listed after, is paused while its pause hangs.
func TestAProviderThatNeverAnswersHoldsUpNoOtherIdleThread(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		var ahead atomic.Int64
		clock := func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
		a := app.New(db, keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{echotest.Kind{}}, Run: run.Options{Clock: clock}})
		config, err := json.Marshal(map[string]any{"idle_minutes": 1})
		require.NoError(t, err)
		start := func(workspace, url, token string) (auxilia.Workspace, auxilia.Run) {
			ws, err := db.System("test").Workspaces().Ensure(ctx, workspace)
			require.NoError(t, err)
			sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Echo", Provider: "echo", URL: url, Secret: &token, Config: config})
			require.NoError(t, err)
			ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
			require.NoError(t, err)
			_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
			require.NoError(t, err)
			r, err := a.Runs.Start(ctx, ws.ID, ag.ID, "t")
			require.NoError(t, err)
			return ws, r
		}
		stuck, healthy := echotest.NewServer(t), echotest.NewServer(t)
		proxy := faultproxy.New(t, strings.TrimPrefix(stuck.URL, "http://"))
		start("acme", "http://"+proxy.Addr(), stuck.Token)
		ws, r := start("globex", healthy.URL, healthy.Token)
		proxy.Blackhole(t)
		ahead.Store(int64(2 * time.Minute))

		pass, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = a.Runs.Idle(pass)
		}()
		defer func() {
			proxy.Heal(t)
			cancel()
			<-done
		}()
		require.Eventually(t, func() bool {
			inst, err := db.In(ws.ID).Instances().Get(ctx, r.InstanceID)
			return err == nil && inst.PausedAt != nil
		}, 10*time.Second, 20*time.Millisecond, "the healthy thread waited for the provider that never answers")
		select {
		case <-done:
			t.Fatal("the idle pass ended before the hung pause's deadline")
		default:
		}
	})
}
