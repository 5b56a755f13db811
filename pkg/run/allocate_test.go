package run_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A warm pool added as one more strategy ahead of creation serves the
// threads it can, and the other strategies go on as before: the thread
// keeps its pooled instance, and a thread the pool cannot serve gets a new one.
func TestAStrategyAheadOfCreation(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		pooled, err := w.fake.Create(context.Background(), provider.Labels{})
		require.NoError(t, err)
		run.AddWarmPool(w.app.Runs, pooled)
		w.fake.ResetCalls()

		first := w.start(t, "t1")
		assert.Equal(t, pooled.ID, first.InstanceRef, "the thread got the pooled instance")
		assert.False(t, first.Created)
		assert.Zero(t, w.fake.TotalCalls(), "nothing was asked of the provider")

		again := w.start(t, "t1")
		assert.Equal(t, pooled.ID, again.InstanceRef, "the thread keeps it")
		assert.Equal(t, 1, w.fake.Calls("reconnect"))

		other := w.start(t, "t2")
		assert.True(t, other.Created, "with the pool empty, the thread gets a new instance")
		assert.Equal(t, 1, w.fake.Calls("create"))
		assert.ElementsMatch(t, []string{pooled.ID, other.InstanceRef}, w.fake.Live())
	})
}
