package run_test

import (
	"context"
	"encoding/json"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the month's instance-hours used up, the workspace's idle instances
// are paused by the provider, the longest idle first, each audited; an
// instance whose thread is in use is left running, and nothing is ended.
func TestUsedUpInstanceHoursPauseIdleInstancesOldestFirst(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, srv, ws := echoWorkspace(t, db)
		config, err := json.Marshal(map[string]any{"idle_minutes": 0})
		require.NoError(t, err)
		sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Echo", Provider: "echo", URL: srv.URL, Secret: &srv.Token, Config: config})
		require.NoError(t, err)
		ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
		require.NoError(t, err)
		_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
		require.NoError(t, err)
		runs := map[string]auxilia.Run{}
		for _, key := range []string{"recent", "oldest", "busy"} {
			r, err := a.Runs.Start(ctx, ws.ID, ag.ID, key)
			require.NoError(t, err)
			runs[key] = r
		}
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		idleSince := "UPDATE threads SET last_activity_at = ? WHERE thread_key = ?"
		if db.Dialect() == store.Postgres {
			idleSince = "UPDATE threads SET last_activity_at = $1 WHERE thread_key = $2"
		}
		for key, ago := range map[string]time.Duration{"oldest": time.Hour, "recent": 5 * time.Minute} {
			_, err = sqlDB.Exec(idleSince, time.Now().Add(-ago).UTC(), key)
			require.NoError(t, err)
		}

		paused, err := a.Runs.PauseIdleOverQuota(ctx, ws.ID)
		require.NoError(t, err)
		assert.Equal(t, 2, paused)
		for key, want := range map[string]bool{"oldest": true, "recent": true, "busy": false} {
			inst, err := db.In(ws.ID).Instances().Get(ctx, runs[key].InstanceID)
			require.NoError(t, err)
			assert.Equal(t, auxilia.InstanceLive, inst.Status, "%s: a quota ends no instance", key)
			assert.Equal(t, want, inst.PausedAt != nil, "%s paused", key)
			assert.Equal(t, want, srv.Paused(inst.ProviderRef), "%s paused by the provider", key)
		}
		page, err := db.In(ws.ID).Audit().List(ctx, auxilia.AuditFilter{Action: "quota.pause"}, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.Len(t, page.Items, 2)
		assert.Contains(t, page.Items[1].Detail, "thread oldest", "the longest idle first (the list is newest first)")
		assert.Contains(t, page.Items[0].Detail, "thread recent")

		paused, err = a.Runs.PauseIdleOverQuota(ctx, ws.ID)
		require.NoError(t, err)
		assert.Zero(t, paused, "paused ones are not paused again")
		_, err = a.Runs.Start(ctx, ws.ID, ag.ID, "oldest")
		require.NoError(t, err, "a thread's run resumes its paused instance: no new instance is needed")
	})
}

// A pool makes nothing once the month's instance-hours are used up, and
// its state says so.
func TestAPoolWaitsOnUsedUpInstanceHours(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		one := 1
		_, err := db.System("test").Quotas().Set(ctx, w.ws.ID, auxilia.QuotaSettings{InstanceHours: &one})
		require.NoError(t, err)
		r := w.start(t, "t1")
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		backdate := "UPDATE usage_intervals SET started_at = ? WHERE instance_id = ?"
		if db.Dialect() == store.Postgres {
			backdate = "UPDATE usage_intervals SET started_at = $1 WHERE instance_id = $2"
		}
		started := time.Now().Add(-90 * time.Minute)
		if monthStart := time.Date(time.Now().UTC().Year(), time.Now().UTC().Month(), 1, 0, 0, 0, 0, time.UTC); started.Before(monthStart) {
			t.Skip("the month began less than 90 minutes ago: an instance-hour cannot have been used in it")
		}
		_, err = sqlDB.Exec(backdate, started.UTC(), r.InstanceID)
		require.NoError(t, err)
		w.edit(t, `{"config":{"pool":{"size":2}}}`)

		w.fake.ResetCalls()
		assert.Equal(t, run.PoolReport{}, w.keep(t))
		assert.Zero(t, w.fake.Calls("create"))
		st := w.pool(t)
		assert.Equal(t, auxilia.PoolWaiting, st.State)
		assert.Contains(t, st.Detail, "instance-hours quota is used up (1 of 1 this month)")
		assert.Zero(t, st.Failures)
	})
}

// A long command keeps its thread active while it runs, so that neither an
// exhausted instance-hours quota nor the idle job pauses the instance under
// it.
func TestALongCallKeepsItsThreadActive(t *testing.T) {
	run.SetCallTouchEvery(t, 100*time.Millisecond)
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		r := w.start(t, "t1")
		began := time.Now()
		_, err := w.app.Runs.Execute(ctx, w.ws.ID, r.ID, run.ExecInput{Command: "sleep 0.6"})
		require.NoError(t, err)
		th, err := db.In(w.ws.ID).Threads().Get(ctx, w.agent.ID, "t1")
		require.NoError(t, err)
		require.NotNil(t, th.LastActivityAt)
		assert.True(t, th.LastActivityAt.After(began.Add(300*time.Millisecond)),
			"the thread's activity was recorded while the command ran: %s after it began", th.LastActivityAt.Sub(began))
	})
}

// echoWorkspace is a server's app on db with the echo provider, its fake
// server, and workspace acme.
func echoWorkspace(t *testing.T, db *store.DB) (*app.App, *echotest.Server, auxilia.Workspace) {
	t.Helper()
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	a := app.New(db, keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{echotest.Kind{}}, Run: run.Options{}})
	ws, err := db.System("test").Workspaces().Ensure(context.Background(), "acme")
	require.NoError(t, err)
	return a, echotest.NewServer(t), ws
}
