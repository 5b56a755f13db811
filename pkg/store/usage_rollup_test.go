package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/auxilia/sandboxes/pkg/usage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unrolled reads a workspace's usage as if nothing were rolled up.
type unrolled struct{ store.TenantUsage }

func (unrolled) Rolled(_ context.Context, from, _ time.Time) (time.Time, time.Time, []auxilia.UsageHour, error) {
	return from, from, nil, nil
}

// meterSomeUsage meters an instance, two commands, a terminal and kept
// files over the past hours, and returns the hour the first began in.
func meterSomeUsage(t *testing.T, db *store.DB) (usageFixture, time.Time) {
	ctx := context.Background()
	f := newUsageFixture(t, db)
	r := startUsageRun(t, db, f)
	runs := db.In(f.ws.ID).Runs()
	t0 := store.Now().Truncate(time.Hour).Add(-3 * time.Hour)
	require.NoError(t, runs.Commands(ctx, []auxilia.CommandUse{
		commandOf(r, t0.Add(50*time.Minute), t0.Add(70*time.Minute+500*time.Millisecond)),
		commandOf(r, t0.Add(2*time.Hour), t0.Add(2*time.Hour+time.Second)),
	}))
	term := auxilia.NewID()
	require.NoError(t, runs.TerminalOpened(ctx, r.ID, term, t0.Add(30*time.Minute)))
	require.NoError(t, runs.TerminalClosed(ctx, term, t0.Add(100*time.Minute)))
	kept, err := db.In(f.ws.ID).Kept().Add(ctx, auxilia.KeptFiles{SandboxID: f.sb.ID, ThreadID: f.thread.ID,
		ProviderRef: "kept-1", At: t0.Add(10 * time.Minute), ForgetAfter: t0.Add(48 * time.Hour), Bytes: 5 << 20})
	require.NoError(t, err)
	require.NoError(t, db.In(f.ws.ID).Kept().Delete(ctx, kept.ID))
	return f, t0
}

func reportOf(t *testing.T, st usage.Store, ws string, q usage.Query, now time.Time) []usage.Row {
	svc := usage.New(func(string) usage.Store { return st }, usage.Options{Now: func() time.Time { return now },
		Rates: usage.Rates{"local": {RunningHour: 0.1, PausedHour: 0.01, KeptGiBDay: 0.5}}})
	ans, err := svc.Report(context.Background(), ws, q)
	require.NoError(t, err)
	return ans.Rows
}

func assertSameRows(t *testing.T, want, got []usage.Row) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for i := range want {
		w, g := want[i], got[i]
		assert.Equal(t, w.Key, g.Key)
		assert.True(t, w.PeriodStart.Equal(g.PeriodStart))
		assert.InDelta(t, w.RunningSeconds, g.RunningSeconds, 1e-6)
		assert.InDelta(t, w.PausedSeconds, g.PausedSeconds, 1e-6)
		assert.Equal(t, w.Created, g.Created)
		assert.Equal(t, w.Commands, g.Commands)
		assert.InDelta(t, w.CommandSeconds, g.CommandSeconds, 1e-6)
		assert.InDelta(t, w.TerminalSeconds, g.TerminalSeconds, 1e-6)
		assert.InDelta(t, w.KeptByteSeconds, g.KeptByteSeconds, 1)
		require.NotNil(t, g.EstimatedCost)
		assert.InDelta(t, *w.EstimatedCost, *g.EstimatedCost, 1e-9)
	}
}

// Once rolled up, a report reads the rollup for the hours it covers and
// answers what the metered rows alone answer; rolling up again adds
// nothing.
func TestUsageRollupEqualsTheRows(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f, t0 := meterSomeUsage(t, db)
		now := store.Now().Add(usage.Settle + 2*time.Hour)
		q := usage.Query{From: t0.Add(-30 * time.Minute), To: now, GroupBy: usage.Thread, Granularity: usage.Hour}
		tenant := db.In(f.ws.ID).Usage()
		raw := reportOf(t, unrolled{tenant}, f.ws.ID, q, now)

		n, err := usage.RollUp(ctx, db.System("usage").Usage(), now, 100)
		require.NoError(t, err)
		hours := int(now.Add(-usage.Settle).Truncate(time.Hour).Sub(t0) / time.Hour)
		assert.Equal(t, hours, n, "every hour from the first metered one until Settle before now")
		start, end, sums, err := tenant.Rolled(ctx, t0.Add(-24*time.Hour), now.Truncate(time.Hour))
		require.NoError(t, err)
		assert.True(t, start.Equal(t0), "from the first metered hour")
		assert.True(t, end.Equal(t0.Add(time.Duration(hours)*time.Hour)))
		require.NotEmpty(t, sums)
		assert.True(t, sums[0].Hour.Equal(t0))
		assert.Equal(t, "t1", sums[0].ThreadKey)
		assert.Equal(t, 1, sums[0].Commands)

		assertSameRows(t, raw, reportOf(t, tenant, f.ws.ID, q, now))
		day := usage.Query{From: t0.Truncate(24 * time.Hour).Add(-24 * time.Hour), To: now, GroupBy: usage.Sandbox, Granularity: usage.Day}
		assertSameRows(t, reportOf(t, unrolled{tenant}, f.ws.ID, day, now), reportOf(t, tenant, f.ws.ID, day, now))

		n, err = usage.RollUp(ctx, db.System("usage").Usage(), now, 100)
		require.NoError(t, err)
		assert.Zero(t, n, "nothing left to roll up")
		assertSameRows(t, raw, reportOf(t, tenant, f.ws.ID, q, now))

		// The rolled-up hours are read from their sums: the commands' rows
		// are no longer needed for them.
		require.NoError(t, db.ExecForTest(ctx, "DELETE FROM usage_commands"))
		assertSameRows(t, raw, reportOf(t, tenant, f.ws.ID, q, now))

		var total struct{ Commands int }
		for _, r := range raw {
			total.Commands += r.Commands
		}
		assert.Equal(t, 2, total.Commands)
	})
}

// Two replicas on one database rolling up together save each hour once.
func TestUsageRollupIsOnceAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewPostgresDatabase(t)
	one, err := store.Open(ctx, url, "")
	require.NoError(t, err)
	t.Cleanup(func() { one.Close() })
	two, err := store.Open(ctx, url, "")
	require.NoError(t, err)
	t.Cleanup(func() { two.Close() })
	f, t0 := meterSomeUsage(t, one)
	now := store.Now().Add(usage.Settle + 2*time.Hour)
	q := usage.Query{From: t0, To: now, GroupBy: usage.Agent, Granularity: usage.Day}
	raw := reportOf(t, unrolled{one.In(f.ws.ID).Usage()}, f.ws.ID, q, now)

	var wg sync.WaitGroup
	saved := make([]int, 2)
	for i, db := range []*store.DB{one, two} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := usage.RollUp(ctx, db.System("usage").Usage(), now, 100)
			assert.NoError(t, err)
			saved[i] = n
		}()
	}
	wg.Wait()
	hours := int(now.Add(-usage.Settle).Truncate(time.Hour).Sub(t0) / time.Hour)
	assert.Equal(t, hours, saved[0]+saved[1], "each hour saved by one replica")
	assertSameRows(t, raw, reportOf(t, two.In(f.ws.ID).Usage(), f.ws.ID, q, now))
}
