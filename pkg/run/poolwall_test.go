package run_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A burst's creates take turns, but a pooled start never waits for them:
// while the runs' creates fill their slots and one more waits its turn, the
// pool refills beside them, and a new thread takes its instance at once.
// Once the provider answers, every create succeeds.
func TestAPooledStartIsServedWhileTheCreatesQueue(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		const slots = 2
		w := newWorld(t, db, func(o *run.Options) { o.CreatesPerSandbox = slots })
		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		release := make(chan struct{})
		var creates atomic.Int32
		w.fake.OnCreate(func(ctx context.Context) {
			if creates.Add(1) > slots {
				return // past the runs' creates in flight: the refill's
			}
			select {
			case <-release:
			case <-ctx.Done():
			}
		})

		var wg sync.WaitGroup
		created := make([]auxilia.Run, slots+1)
		startCreating := func(i int) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := w.app.Runs.Start(context.Background(), w.ws.ID, w.agent.ID, "new"+string(rune('a'+i)))
				assert.NoError(t, err)
				created[i] = r
			}()
		}
		for i := range slots {
			startCreating(i)
		}
		require.Eventually(t, func() bool { return w.fake.Calls("create") == slots }, 10*time.Second, time.Millisecond)
		startCreating(slots)
		require.Eventually(t, func() bool { return run.CreatesWaiting(w.app.Runs, w.sandbox.ID) == 1 }, 10*time.Second, time.Millisecond)

		assert.Equal(t, run.PoolReport{Created: 1}, w.keep(t), "the refill does not wait behind the runs' creates")
		pooled := w.start(t, "pooled")
		assert.False(t, pooled.Created, "the pool served it while the creates were in flight")
		assert.Equal(t, slots+1, w.fake.Calls("create"), "the waiting create has not asked the provider")
		assert.Equal(t, 1, run.CreatesWaiting(w.app.Runs, w.sandbox.ID))

		close(release)
		wg.Wait()
		for _, r := range created {
			assert.True(t, r.Created)
		}
		assert.Equal(t, slots+2, w.fake.Calls("create"))
		assert.Equal(t, 0, run.CreatesWaiting(w.app.Runs, w.sandbox.ID))
	})
}
