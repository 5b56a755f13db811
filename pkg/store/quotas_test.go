package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func intp(n int) *int { return &n }

type quotaFixture struct {
	ws    auxilia.Workspace
	sb    auxilia.Sandbox
	agent auxilia.Agent
}

func newQuotaFixture(t *testing.T, db *store.DB) quotaFixture {
	t.Helper()
	ctx := context.Background()
	ws, err := db.Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	db.CheckSandboxesWith(refuseNamed(""))
	sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
	require.NoError(t, err)
	agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
	require.NoError(t, err)
	return quotaFixture{ws: ws, sb: sb, agent: agent}
}

// claim makes an instance for the agent's thread key, as a run start does:
// the thread's lock and the claim in one transaction.
func (f quotaFixture) claim(db *store.DB, agentID, key string) (auxilia.Instance, error) {
	var inst auxilia.Instance
	err := db.InTx(context.Background(), func(ctx context.Context) error {
		th, err := db.Threads().Lock(ctx, f.ws.ID, agentID, key)
		if err != nil {
			return err
		}
		inst, err = db.Instances().Claim(ctx, th, f.sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		return err
	})
	return inst, err
}

func quotaUse(t *testing.T, db *store.DB, wsID string, name auxilia.QuotaName) auxilia.QuotaUse {
	t.Helper()
	use, err := db.In(wsID).Quotas().Use(context.Background())
	require.NoError(t, err)
	for _, u := range use {
		if u.Name == name {
			return u
		}
	}
	t.Fatalf("no quota %s in %v", name, use)
	return auxilia.QuotaUse{}
}

// Many claims at once, on threads of their own, make exactly as many
// instances as the quota allows: the rest are refused, naming the quota.
func TestClaimsAtOnceStopAtTheInstancesQuota(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		f := newQuotaFixture(t, db)
		_, err := db.System("test").Quotas().Set(context.Background(), f.ws.ID, auxilia.QuotaSettings{Instances: intp(3)})
		require.NoError(t, err)

		const starts = 12
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			made    int
			refused []error
		)
		for i := range starts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.claim(db, f.agent.ID, "t"+string(rune('a'+i)))
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					made++
				} else {
					refused = append(refused, err)
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, 3, made)
		require.Len(t, refused, starts-3)
		for _, err := range refused {
			var ae *auxilia.Error
			require.ErrorAs(t, err, &ae)
			assert.Equal(t, auxilia.CodeQuotaExceeded, ae.Code)
			assert.Equal(t, map[string]any{"quota": "instances", "limit": 3, "used": 3}, ae.Extra)
			assert.Equal(t, auxilia.QuotaRetryConcurrent, ae.RetryAfter)
		}
		use := quotaUse(t, db, f.ws.ID, auxilia.QuotaInstances)
		assert.Equal(t, 3, use.Limit)
		assert.False(t, use.Default)
		assert.Equal(t, 3, *use.Used)
		alerts, err := db.Audit().List(context.Background(), f.ws.ID, auxilia.AuditFilter{Action: "quota.alert"}, auxilia.PageRequest{Size: 50})
		require.NoError(t, err)
		require.Len(t, alerts.Items, 1, "the crossing is announced once, however many raced past it")
		assert.Equal(t, "instances quota 100% used: 3 of 3", alerts.Items[0].Detail)
	})
}

// A released instance frees its room; pool instances take room too, and a
// pool's Add is refused once none is left.
func TestPoolInstancesCountAgainstTheInstancesQuota(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		db.SetQuotaDefaults(auxilia.Quotas{Instances: 2})
		_, err := db.Pools().Add(ctx, f.sb, time.Now().Add(time.Minute))
		require.NoError(t, err)
		first, err := f.claim(db, f.agent.ID, "a")
		require.NoError(t, err)
		_, err = db.Pools().Add(ctx, f.sb, time.Now().Add(time.Minute))
		assert.True(t, auxilia.IsCode(err, auxilia.CodeQuotaExceeded), "%v", err)
		_, err = f.claim(db, f.agent.ID, "b")
		assert.True(t, auxilia.IsCode(err, auxilia.CodeQuotaExceeded), "%v", err)
		use := quotaUse(t, db, f.ws.ID, auxilia.QuotaInstances)
		assert.True(t, use.Default, "the server's default")

		require.NoError(t, db.Instances().Release(ctx, first.ID))
		_, err = f.claim(db, f.agent.ID, "b")
		assert.NoError(t, err, "the released instance's room is free again")
	})
}

// An agent's threads with a live instance stop at threads_per_agent; other
// agents' threads do not count, and 0 is no limit.
func TestThreadsPerAgentQuota(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		other, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: f.ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Other"}})
		require.NoError(t, err)
		db.SetQuotaDefaults(auxilia.Quotas{ThreadsPerAgent: 1})
		_, err = f.claim(db, f.agent.ID, "a")
		require.NoError(t, err)
		_, err = f.claim(db, f.agent.ID, "b")
		var ae *auxilia.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, map[string]any{"quota": "threads_per_agent", "limit": 1, "used": 1}, ae.Extra)
		_, err = f.claim(db, other.ID, "a")
		assert.NoError(t, err, "another agent's threads have their own quota")
		assert.Equal(t, 1, *quotaUse(t, db, f.ws.ID, auxilia.QuotaThreadsPerAgent).Used)

		_, err = db.System("test").Quotas().Set(ctx, f.ws.ID, auxilia.QuotaSettings{ThreadsPerAgent: intp(0)})
		require.NoError(t, err)
		_, err = f.claim(db, f.agent.ID, "b")
		assert.NoError(t, err, "the workspace's own 0 is no limit, over the default")
	})
}

// Set changes only what it names; the instance-hours quota is kept and
// shown with its use.
func TestQuotaSetChangesOnlyWhatItNames(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		q := db.System("test").Quotas()
		got, err := q.Set(ctx, f.ws.ID, auxilia.QuotaSettings{Instances: intp(5), InstanceHours: intp(100)})
		require.NoError(t, err)
		got, err = q.Set(ctx, f.ws.ID, auxilia.QuotaSettings{ThreadsPerAgent: intp(2)})
		require.NoError(t, err)
		assert.Equal(t, auxilia.QuotaSettings{Instances: intp(5), InstanceHours: intp(100), ThreadsPerAgent: intp(2)}, got)
		hours := quotaUse(t, db, f.ws.ID, auxilia.QuotaInstanceHours)
		assert.Equal(t, 100, hours.Limit)
		require.NotNil(t, hours.Used)
		assert.Equal(t, 0, *hours.Used, "nothing ran yet")
	})
}

// Crossing 80 % and then 100 % of the instances quota is audited once
// each; falling back and crossing again is audited again.
func TestCrossingAQuotaAlertLevelIsAuditedOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		db.SetQuotaDefaults(auxilia.Quotas{Instances: 5})
		alerts := func() []string {
			page, err := db.Audit().List(ctx, f.ws.ID, auxilia.AuditFilter{Action: "quota.alert"}, auxilia.PageRequest{Size: 50})
			require.NoError(t, err)
			var out []string
			for _, e := range page.Items {
				out = append([]string{e.Detail}, out...)
			}
			return out
		}
		var made []auxilia.Instance
		for _, key := range []string{"a", "b", "c"} {
			inst, err := f.claim(db, f.agent.ID, key)
			require.NoError(t, err)
			made = append(made, inst)
		}
		assert.Empty(t, alerts(), "60 %% alerts nobody")
		_, err := f.claim(db, f.agent.ID, "d")
		require.NoError(t, err)
		assert.Equal(t, []string{"instances quota 80% used: 4 of 5"}, alerts())
		_, err = f.claim(db, f.agent.ID, "e")
		require.NoError(t, err)
		_, err = f.claim(db, f.agent.ID, "f")
		require.Error(t, err)
		assert.Equal(t, []string{"instances quota 80% used: 4 of 5", "instances quota 100% used: 5 of 5"}, alerts())

		for _, inst := range made {
			require.NoError(t, db.Instances().Release(ctx, inst.ID))
		}
		_, err = f.claim(db, f.agent.ID, "a") // 3 of 5: below the levels again
		require.NoError(t, err)
		_, err = f.claim(db, f.agent.ID, "b") // 4 of 5: crossed again
		require.NoError(t, err)
		assert.Len(t, alerts(), 3)
	})
}

// The month's instance-hours, counted from the usage the lifecycle keeps,
// stop new instances once used up, until the next month (a thread's own
// live instance is reconnected, never admitted again, so it goes on).
func TestTheInstanceHoursQuotaStopsNewInstancesForTheMonth(t *testing.T) {
	now := time.Now().UTC()
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	if now.Sub(monthStart) < 2*time.Hour {
		t.Skip("the month is under two hours old: no instance can have run an hour and a half of it")
	}
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		f := newQuotaFixture(t, db)
		db.SetQuotaDefaults(auxilia.Quotas{InstanceHours: 1})
		first, err := f.claim(db, f.agent.ID, "a")
		require.NoError(t, err)
		assert.Equal(t, 0, *quotaUse(t, db, f.ws.ID, auxilia.QuotaInstanceHours).Used)

		sqlDB, err := db.SQL()
		require.NoError(t, err)
		backdate := "UPDATE usage_intervals SET started_at = ? WHERE instance_id = ?"
		if db.Dialect() == store.Postgres {
			backdate = "UPDATE usage_intervals SET started_at = $1 WHERE instance_id = $2"
		}
		_, err = sqlDB.Exec(backdate, now.Add(-90*time.Minute), first.ID)
		require.NoError(t, err)
		assert.Equal(t, 1, *quotaUse(t, db, f.ws.ID, auxilia.QuotaInstanceHours).Used)

		_, err = f.claim(db, f.agent.ID, "b")
		var ae *auxilia.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, map[string]any{"quota": "instance_hours", "limit": 1, "used": 1}, ae.Extra)
		assert.WithinDuration(t, monthStart.AddDate(0, 1, 0), time.Now().Add(ae.RetryAfter), time.Minute, "waiting helps when the month ends")
	})
}
