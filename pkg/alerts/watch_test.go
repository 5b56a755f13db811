package alerts_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/alerts"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// measured is the store with the uses the test says.
type measured struct {
	store.SystemAlerts
	use map[auxilia.QuotaName]int
}

func (m measured) Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error) {
	limits := map[auxilia.QuotaName]int{auxilia.QuotaInstances: 10, auxilia.QuotaInstanceHours: 100, auxilia.QuotaThreadsPerAgent: 5}
	var out []auxilia.QuotaUse
	for _, name := range auxilia.QuotaNames() {
		used := m.use[name]
		out = append(out, auxilia.QuotaUse{Name: name, Limit: limits[name], Used: &used})
	}
	return out, nil
}

type budget struct{ cost float64 }

func (b *budget) Budget(context.Context, string) (auxilia.Budget, error) {
	return auxilia.Budget{Limit: 200, Cost: &b.cost, Currency: "EUR"}, nil
}

type pauser struct{ asked []string }

func (p *pauser) PauseIdleOverQuota(_ context.Context, workspaceID string) (int, error) {
	p.asked = append(p.asked, workspaceID)
	return 2, nil
}

// A pass announces what time made cross a level (instance-hours, the
// estimated cost), each once; a use that fell rearms its alert; idle
// instances are paused only while instance-hours are used up.
func TestWatcherAnnouncesWhatTimeCrosses(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		m := measured{SystemAlerts: db.System("test").Alerts(), use: map[auxilia.QuotaName]int{auxilia.QuotaInstanceHours: 85}}
		b, p := &budget{cost: 100}, &pauser{}
		w := alerts.Watcher{Store: m, Budgets: b, Pauser: p}
		details := func() []string {
			page, err := db.In(ws.ID).Audit().List(ctx, auxilia.AuditFilter{Action: "quota.alert"}, auxilia.PageRequest{Size: 50})
			require.NoError(t, err)
			var out []string
			for _, e := range page.Items {
				out = append([]string{e.Detail}, out...)
			}
			return out
		}

		rep, err := w.Watch(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.WatchReport{Workspaces: 1}, rep)
		assert.Equal(t, []string{"instance_hours quota 80% used: 85 of 100"}, details())
		assert.Empty(t, p.asked)

		m.use[auxilia.QuotaInstanceHours], b.cost = 100, 170
		rep, err = w.Watch(ctx)
		require.NoError(t, err)
		assert.Equal(t, alerts.WatchReport{Workspaces: 1, Paused: 2}, rep)
		_, err = w.Watch(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"instance_hours quota 80% used: 85 of 100", "instance_hours quota 100% used: 100 of 100",
			"cost budget 80% used: an estimated 170.00 of 200.00 EUR this month"}, details())
		assert.Equal(t, []string{ws.ID, ws.ID}, p.asked, "paused on every pass while used up")

		m.use[auxilia.QuotaInstanceHours], b.cost = 0, 0 // a new month
		_, err = w.Watch(ctx)
		require.NoError(t, err)
		m.use[auxilia.QuotaInstanceHours] = 90
		_, err = w.Watch(ctx)
		require.NoError(t, err)
		assert.Len(t, details(), 4, "the next month's crossing is announced again")
		assert.Equal(t, "instance_hours quota 80% used: 90 of 100", details()[3])
	})
}
