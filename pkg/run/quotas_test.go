package run_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pool fills only as far as the workspace's instances quota: its state
// says it waits on the quota, nothing counts as a failed create, and a
// thread's instance (which takes the last room) leaves the pool waiting
// without its live instances being touched. A thread then still gets the
// pool's ready instance: claiming one makes none.
func TestAPoolStopsAtTheInstancesQuota(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db)
		two := 2
		_, err := db.System("test").Quotas().Set(ctx, w.ws.ID, auxilia.QuotaSettings{Instances: &two})
		require.NoError(t, err)
		w.edit(t, `{"config":{"pool":{"size":3}}}`)

		assert.Equal(t, run.PoolReport{Created: 2}, w.keep(t))
		assert.Len(t, w.fake.Live(), 2)
		st := w.pool(t)
		assert.Equal(t, auxilia.PoolWaiting, st.State)
		assert.Equal(t, 2, st.Ready)
		assert.Contains(t, st.Detail, "instances quota is used up (2 of 2")
		assert.Zero(t, st.Failures)

		w.fake.ResetCalls()
		assert.Equal(t, run.PoolReport{}, w.keep(t), "another pass makes nothing, and fails nothing")
		assert.Zero(t, w.fake.Calls("create"))

		first := w.start(t, "t1")
		assert.False(t, first.Created, "taken from the pool: no room is needed")
		_, err = w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "t2")
		require.NoError(t, err, "the pool's second ready instance")
		_, err = w.app.Runs.Start(ctx, w.ws.ID, w.agent.ID, "t3")
		var ae *auxilia.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, auxilia.CodeQuotaExceeded, ae.Code)
		assert.Equal(t, map[string]any{"quota": "instances", "limit": 2, "used": 2}, ae.Extra)
		assert.Equal(t, run.PoolReport{}, w.keep(t))
		assert.Len(t, w.fake.Live(), 2, "no live instance is killed by the quota")
	})
}
