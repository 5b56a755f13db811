package run_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/alerts"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A warm pool's unclaimed instances are idle: nothing pauses them while the
// month's instance-hours last; once they are used up the quota's watcher
// has the provider pause them (audited, never ended), the pool says so and
// makes nothing, and a new thread's run takes a paused one, resumed, and
// works in it.
func TestUsedUpInstanceHoursPauseThePoolsUnclaimedInstances(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		a, srv, ws := echoWorkspace(t, db)
		one := 1
		_, err := db.System("test").Quotas().Set(ctx, ws.ID, auxilia.QuotaSettings{InstanceHours: &one})
		require.NoError(t, err)
		config, err := json.Marshal(map[string]any{"pool": map[string]any{"size": 2}})
		require.NoError(t, err)
		sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Echo", Provider: "echo", URL: srv.URL, Secret: &srv.Token, Config: config})
		require.NoError(t, err)
		ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
		require.NoError(t, err)
		_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
		require.NoError(t, err)
		rep, err := a.Runs.KeepPools(ctx)
		require.NoError(t, err)
		require.Equal(t, run.PoolReport{Created: 2}, rep)
		pooled := unclaimedPoolInstances(t, db, ws.ID, sb.ID)
		require.Len(t, pooled, 2)

		watcher := alerts.Watcher{Store: db.System("test").Alerts(), Pauser: a.Runs}
		watched, err := watcher.Watch(ctx)
		require.NoError(t, err)
		assert.Zero(t, watched.Paused, "nothing is paused while instance-hours last")
		for _, inst := range pooled {
			assert.False(t, srv.Paused(inst.ProviderRef))
		}

		started := time.Now().Add(-90 * time.Minute)
		if monthStart := time.Date(time.Now().UTC().Year(), time.Now().UTC().Month(), 1, 0, 0, 0, 0, time.UTC); started.Before(monthStart) {
			t.Skip("the month began less than 90 minutes ago: an instance-hour cannot have been used in it")
		}
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		backdate := "UPDATE usage_intervals SET started_at = ? WHERE instance_id = ?"
		if db.Dialect() == store.Postgres {
			backdate = "UPDATE usage_intervals SET started_at = $1 WHERE instance_id = $2"
		}
		res, err := sqlDB.Exec(backdate, started.UTC(), pooled[0].ID)
		require.NoError(t, err)
		n, err := res.RowsAffected()
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "a pool instance uses instance-hours")

		watched, err = watcher.Watch(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, watched.Paused)
		for _, inst := range pooled {
			got, err := db.In(ws.ID).Instances().Get(ctx, inst.ID)
			require.NoError(t, err)
			assert.Equal(t, auxilia.InstanceLive, got.Status, "a quota ends no instance")
			assert.NotNil(t, got.PausedAt)
			assert.Equal(t, inst.UpdatedAt, got.UpdatedAt, "paused, it is handed out and retired as if it ran")
			assert.True(t, srv.Paused(inst.ProviderRef), "paused by the provider")
		}
		metered := instanceUsage(t, db, ws.ID, pooled[1].ID)
		require.Len(t, metered, 2)
		assert.Equal(t, auxilia.UsageRunning, metered[0].State)
		assert.False(t, metered[0].End.IsZero(), "its running ended at the pause")
		assert.Equal(t, auxilia.UsagePaused, metered[1].State)
		assert.True(t, metered[1].End.IsZero(), "paused since: no more instance-hours")
		page, err := db.In(ws.ID).Audit().List(ctx, auxilia.AuditFilter{Action: "quota.pause"}, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.Len(t, page.Items, 2)
		assert.Contains(t, page.Items[1].Detail, "paused instance "+pooled[0].ID+" of the warm pool of sandbox Echo", "the longest ready first")
		assert.Contains(t, page.Items[0].Detail, pooled[1].ID)

		st, err := a.Runs.PoolStatus(ctx, sb)
		require.NoError(t, err)
		assert.Equal(t, auxilia.PoolReady, st.State, "paused instances are still handed out")
		assert.Equal(t, 2, st.Ready)
		assert.Contains(t, st.Detail, "2 of the 2 ready instances are paused, as the workspace's instance-hours quota was used up")
		rep, err = a.Runs.KeepPools(ctx)
		require.NoError(t, err)
		assert.Equal(t, run.PoolReport{}, rep, "a paused instance is neither replaced nor retired")
		watched, err = watcher.Watch(ctx)
		require.NoError(t, err)
		assert.Zero(t, watched.Paused, "paused ones are not paused again")

		r, err := a.Runs.Start(ctx, ws.ID, ag.ID, "t1")
		require.NoError(t, err)
		assert.False(t, r.Created, "the pool's instance is taken")
		assert.Equal(t, pooled[0].ProviderRef, r.InstanceRef, "the longest ready first")
		assert.False(t, srv.Paused(r.InstanceRef), "taking it resumed it")
		got, err := db.In(ws.ID).Instances().Get(ctx, r.InstanceID)
		require.NoError(t, err)
		assert.Nil(t, got.PausedAt)
		out, err := a.Runs.Execute(ctx, ws.ID, r.ID, run.ExecInput{Command: "echo hello"})
		require.NoError(t, err)
		assert.Zero(t, out.ExitCode)
		marked, err := db.System("test").Pools().MarkPaused(ctx, r.InstanceID, time.Now())
		require.NoError(t, err)
		assert.False(t, marked, "a claimed instance is its thread's: the pool's pause passes it over")

		st, err = a.Runs.PoolStatus(ctx, sb)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Ready)
		assert.Contains(t, st.Detail, "1 of the 1 ready instances are paused")
	})
}

// A provider that cannot pause leaves the pool's instances, and idle
// threads' instances, running, and is no failure: a quota never ends an
// instance.
func TestAPoolWhoseProviderCannotPauseRunsOn(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		r := w.start(t, "t1")
		sqlDB, err := db.SQL()
		require.NoError(t, err)
		idleSince := "UPDATE threads SET last_activity_at = ? WHERE thread_key = ?"
		if db.Dialect() == store.Postgres {
			idleSince = "UPDATE threads SET last_activity_at = $1 WHERE thread_key = $2"
		}
		_, err = sqlDB.Exec(idleSince, time.Now().Add(-time.Hour).UTC(), "t1")
		require.NoError(t, err)
		w.edit(t, `{"config":{"pool":{"size":2}}}`)
		require.Equal(t, run.PoolReport{Created: 2}, w.keep(t))
		pooled := unclaimedPoolInstances(t, db, w.ws.ID, w.sandbox.ID)
		require.Len(t, pooled, 2)

		paused, err := w.app.Runs.PauseIdleOverQuota(ctx, w.ws.ID)
		require.NoError(t, err)
		assert.Zero(t, paused)
		assert.Len(t, w.fake.Live(), 3)
		inst, err := db.In(w.ws.ID).Instances().Get(ctx, r.InstanceID)
		require.NoError(t, err)
		assert.Nil(t, inst.PausedAt, "the idle thread's instance runs on")
		for _, inst := range pooled {
			got, err := db.In(w.ws.ID).Instances().Get(ctx, inst.ID)
			require.NoError(t, err)
			assert.Nil(t, got.PausedAt)
			assert.Equal(t, auxilia.InstanceLive, got.Status)
			assert.Equal(t, inst.UpdatedAt, got.UpdatedAt, "not marked at all: it stays as ready as it was")
			assert.Len(t, instanceUsage(t, db, w.ws.ID, inst.ID), 1, "metered running throughout")
		}
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolReady, Size: 2, Ready: 2}, w.pool(t))
	})
}

// unclaimedPoolInstances are the sandbox's live pool instances no thread
// has, the longest ready first.
func unclaimedPoolInstances(t *testing.T, db *store.DB, workspaceID, sandboxID string) []auxilia.Instance {
	t.Helper()
	all, err := db.System("test").Pools().Running(context.Background(), workspaceID, 100)
	require.NoError(t, err)
	var out []auxilia.Instance
	for _, inst := range all {
		if inst.SandboxID == sandboxID {
			out = append(out, inst)
		}
	}
	return out
}

// instanceUsage is what was metered of one instance, oldest first.
func instanceUsage(t *testing.T, db *store.DB, workspaceID, instanceID string) []auxilia.UsageInterval {
	t.Helper()
	all, err := db.In(workspaceID).Usage().Intervals(context.Background(), time.Now().Add(-24*time.Hour), time.Now().Add(time.Hour))
	require.NoError(t, err)
	var out []auxilia.UsageInterval
	for _, u := range all {
		if u.InstanceID == instanceID {
			out = append(out, u)
		}
	}
	return out
}
