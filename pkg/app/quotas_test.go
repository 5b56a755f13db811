package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/auxilia/sandboxes/pkg/usage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A workspace's budget is measured against this month's usage at the
// operator's rates: an instance that ran an hour at 10 EUR an hour is an
// estimated 10 EUR, 80 % of a 12.5 EUR budget. Without a budget no cost is
// measured.
func TestTheBudgetIsMeasuredAtTheOperatorsRates(t *testing.T) {
	now := time.Now().UTC()
	if monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC); now.Sub(monthStart) < 2*time.Hour {
		t.Skip("the month is under two hours old: no instance can have run an hour of it")
	}
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		keys, err := secret.ParseKeys(secret.NewKey())
		require.NoError(t, err)
		a := app.New(db, keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{providertest.NewFake(t.TempDir())},
			Cost: usage.Options{Rates: usage.Rates{"fake": {RunningHour: 10}}, Currency: "EUR"}})
		ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "Fake", Provider: "fake"})
		require.NoError(t, err)
		ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
		require.NoError(t, err)
		_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
		require.NoError(t, err)
		r, err := a.Runs.Start(ctx, ws.ID, ag.ID, "t1")
		require.NoError(t, err)

		b, err := a.Quotas.Budget(ctx, ws.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.Budget{Default: true, Currency: "EUR"}, b, "no budget: no cost measured")

		sqlDB, err := db.SQL()
		require.NoError(t, err)
		backdate := "UPDATE usage_intervals SET started_at = ? WHERE instance_id = ?"
		if db.Dialect() == store.Postgres {
			backdate = "UPDATE usage_intervals SET started_at = $1 WHERE instance_id = $2"
		}
		_, err = sqlDB.Exec(backdate, now.Add(-time.Hour), r.InstanceID)
		require.NoError(t, err)
		budget := 12.5
		_, err = a.Quotas.Set(ctx, "acme", auxilia.QuotaSettings{CostBudget: &budget})
		require.NoError(t, err)

		b, err = a.Quotas.Budget(ctx, ws.ID)
		require.NoError(t, err)
		assert.Equal(t, 12.5, b.Limit)
		assert.False(t, b.Default)
		assert.Equal(t, "EUR", b.Currency)
		require.NotNil(t, b.Cost)
		assert.InDelta(t, 10, *b.Cost, 0.1)
		assert.Equal(t, 80, b.Level())
	})
}
