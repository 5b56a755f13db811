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

func alertDetails(t *testing.T, db *store.DB, wsID, action string) []string {
	t.Helper()
	page, err := db.Audit().List(context.Background(), wsID, auxilia.AuditFilter{Action: action}, auxilia.PageRequest{Size: 50})
	require.NoError(t, err)
	var out []string
	for _, e := range page.Items {
		out = append([]string{e.Detail}, out...)
	}
	return out
}

// The threads-per-agent quota is announced at 80 and 100 % as its agent's
// threads take instances, once each.
func TestThreadsPerAgentAlertsAtAdmission(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		f := newQuotaFixture(t, db)
		db.SetQuotaDefaults(auxilia.Quotas{ThreadsPerAgent: 5})
		for _, key := range []string{"a", "b", "c"} {
			_, err := f.claim(db, f.agent.ID, key)
			require.NoError(t, err)
		}
		assert.Empty(t, alertDetails(t, db, f.ws.ID, "quota.alert"))
		_, err := f.claim(db, f.agent.ID, "d")
		require.NoError(t, err)
		assert.Equal(t, []string{"threads_per_agent quota 80% used: 4 of 5"}, alertDetails(t, db, f.ws.ID, "quota.alert"))
		_, err = f.claim(db, f.agent.ID, "e")
		require.NoError(t, err)
		_, err = f.claim(db, f.agent.ID, "f")
		require.True(t, auxilia.IsCode(err, auxilia.CodeQuotaExceeded), "%v", err)
		assert.Equal(t, []string{"threads_per_agent quota 80% used: 4 of 5", "threads_per_agent quota 100% used: 5 of 5"},
			alertDetails(t, db, f.ws.ID, "quota.alert"))
		alerts, err := db.In(f.ws.ID).Alerts().List(context.Background(), 10)
		require.NoError(t, err)
		require.Len(t, alerts, 2)
		assert.Equal(t, auxilia.AlertDeliveryOff, alerts[0].Delivery, "no webhook is set")
		assert.Equal(t, 100, alerts[0].Level)
		assert.Equal(t, "acme", alerts[0].WorkspaceName)
	})
}

// A level recorded from many replicas at once is announced once; a fall is
// silent, and the next rise is announced again.
func TestRecordAnnouncesEachRiseOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		alerts := db.System("test").Alerts()
		hours := func(used int) []auxilia.AlertReached {
			return []auxilia.AlertReached{{Subject: auxilia.AlertSubject(auxilia.QuotaInstanceHours),
				Level: auxilia.AlertLevel(used, 10), Used: float64(used), Limit: 10}}
		}
		var wg sync.WaitGroup
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				assert.NoError(t, alerts.Record(ctx, f.ws.ID, hours(8)))
			}()
		}
		wg.Wait()
		assert.Equal(t, []string{"instance_hours quota 80% used: 8 of 10"}, alertDetails(t, db, f.ws.ID, "quota.alert"))
		require.NoError(t, alerts.Record(ctx, f.ws.ID, hours(9)))
		require.NoError(t, alerts.Record(ctx, f.ws.ID, hours(1)), "a new month")
		require.NoError(t, alerts.Record(ctx, f.ws.ID, hours(10)))
		cost := []auxilia.AlertReached{{Subject: auxilia.AlertCostBudget, Level: auxilia.CostLevel(41.5, 50), Used: 41.5, Limit: 50, Currency: "EUR"}}
		require.NoError(t, alerts.Record(ctx, f.ws.ID, cost))
		assert.Equal(t, []string{"instance_hours quota 80% used: 8 of 10", "instance_hours quota 100% used: 10 of 10",
			"cost budget 80% used: an estimated 41.50 of 50.00 EUR this month"}, alertDetails(t, db, f.ws.ID, "quota.alert"))
	})
}

// With a webhook set, an alert waits in the outbox until delivered; a
// retry waits for its time; giving up is audited and visible.
func TestAlertOutbox(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		db.SetAlertWebhook(true)
		alerts := db.System("test").Alerts()
		reach := func(subject auxilia.QuotaName) {
			require.NoError(t, alerts.Record(ctx, f.ws.ID, []auxilia.AlertReached{{Subject: auxilia.AlertSubject(subject), Level: 100, Used: 4, Limit: 4}}))
		}
		reach(auxilia.QuotaInstanceHours)
		reach(auxilia.QuotaInstances)
		now := time.Now()
		due, err := alerts.Due(ctx, now, 10)
		require.NoError(t, err)
		require.Len(t, due, 2)
		assert.Equal(t, auxilia.AlertDeliveryPending, due[0].Delivery)
		require.NoError(t, alerts.Delivered(ctx, due[0].ID, 1, now))
		require.NoError(t, alerts.Retry(ctx, due[1].ID, 1, "HTTP 500", now.Add(time.Minute)))
		due, err = alerts.Due(ctx, now, 10)
		require.NoError(t, err)
		assert.Empty(t, due, "the retry waits for its time")
		due, err = alerts.Due(ctx, now.Add(2*time.Minute), 10)
		require.NoError(t, err)
		require.Len(t, due, 1)
		require.NoError(t, alerts.GiveUp(ctx, due[0], 2, "HTTP 503"))
		list, err := db.In(f.ws.ID).Alerts().List(ctx, 10)
		require.NoError(t, err)
		states := map[auxilia.AlertSubject]auxilia.Alert{}
		for _, a := range list {
			states[a.Subject] = a
		}
		assert.Equal(t, auxilia.AlertDeliveryDelivered, states["instance_hours"].Delivery)
		failed := states["instances"]
		assert.Equal(t, auxilia.AlertDeliveryFailed, failed.Delivery)
		assert.Equal(t, 2, failed.Attempts)
		assert.Equal(t, "HTTP 503", failed.LastError)
		assert.Equal(t, []string{"the alert webhook refused the instances 100% alert 2 times; the last: HTTP 503"},
			alertDetails(t, db, f.ws.ID, "alert.failed"))
	})
}

// The operator's cost budget is kept with the quotas, over the default.
func TestCostBudgetSetting(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newQuotaFixture(t, db)
		db.SetQuotaDefaults(auxilia.Quotas{CostBudget: 100})
		_, limits, err := db.In(f.ws.ID).Quotas().Limits(ctx)
		require.NoError(t, err)
		assert.Equal(t, 100.0, limits.CostBudget)
		budget := 25.5
		_, err = db.System("test").Quotas().Set(ctx, f.ws.ID, auxilia.QuotaSettings{CostBudget: &budget})
		require.NoError(t, err)
		_, err = db.System("test").Quotas().Set(ctx, f.ws.ID, auxilia.QuotaSettings{Instances: intp(3)})
		require.NoError(t, err)
		own, limits, err := db.In(f.ws.ID).Quotas().Limits(ctx)
		require.NoError(t, err)
		require.NotNil(t, own.CostBudget)
		assert.Equal(t, 25.5, *own.CostBudget)
		assert.Equal(t, 25.5, limits.CostBudget)
		assert.Equal(t, 3, limits.Instances)
	})
}
