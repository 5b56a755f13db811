package run_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local/localtest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A local instance whose creator died before it could record the id is
// found by its labels: the reaper leaves nothing of it on the host.
func TestReaperDestroysALocalInstanceWhoseCreatorDied(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		dataDir := t.TempDir()
		localtest.Seed(t, dataDir)
		a := app.New(db, keys, app.Options{DataDir: dataDir})
		ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Local", Provider: "local"})
		require.NoError(t, err)
		ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
		require.NoError(t, err)
		thread, err := db.In(ws.ID).Threads().Lock(ctx, ag.ID, "t1")
		require.NoError(t, err)
		claim, err := db.In(ws.ID).Instances().Claim(ctx, thread, sb.ID, auxilia.NewID(), time.Now().Add(50*time.Millisecond))
		require.NoError(t, err)
		client, _, err := a.Sandboxes.Client(ctx, ws.ID, sb.ID)
		require.NoError(t, err)

		// The creator makes the instance, and dies before it records the id.
		_, err = client.Create(ctx, provider.Labels{Workspace: ws.ID, Sandbox: sb.ID, Thread: thread.ID, Instance: claim.ID})
		require.NoError(t, err)
		instances := filepath.Join(dataDir, "instances")
		made, err := os.ReadDir(instances)
		require.NoError(t, err)
		require.NotEmpty(t, made)

		time.Sleep(100 * time.Millisecond)
		rep, err := a.Runs.Reap(ctx)
		require.NoError(t, err)
		assert.Equal(t, run.ReapReport{Abandoned: 1, Destroyed: 1}, rep)
		left, err := os.ReadDir(instances)
		require.NoError(t, err)
		assert.Empty(t, left, "nothing of the instance is left")
	})
}
