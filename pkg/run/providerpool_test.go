package run_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// poolKeeping is the fake provider as one that keeps warm pools itself,
// as Kubernetes does: it records the sizes it is told and answers the
// counts a test sets.
type poolKeeping struct {
	*providertest.Fake

	mu    sync.Mutex
	sizes map[string][]int // sandbox id → the sizes it was told, in order
	count provider.PoolCount
	err   error
}

func (k *poolKeeping) Describe() provider.Descriptor {
	d := k.Fake.Describe()
	d.Capabilities |= provider.ProviderPool
	return d
}

func (k *poolKeeping) Open(s provider.Settings) (provider.Client, error) {
	return keepingClient{Client: k.Fake, kind: k}, nil
}

type keepingClient struct {
	provider.Client
	kind *poolKeeping
}

func (c keepingClient) KeepPool(_ context.Context, l provider.Labels, size int) (provider.PoolCount, error) {
	c.kind.mu.Lock()
	defer c.kind.mu.Unlock()
	c.kind.sizes[l.Sandbox] = append(c.kind.sizes[l.Sandbox], size)
	if c.kind.err != nil {
		return provider.PoolCount{}, c.kind.err
	}
	return provider.PoolCount{Ready: min(c.kind.count.Ready, size), Creating: min(c.kind.count.Creating, size)}, nil
}

func (k *poolKeeping) told(sandboxID string) []int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]int(nil), k.sizes[sandboxID]...)
}

func (k *poolKeeping) answer(count provider.PoolCount, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.count, k.err = count, err
}

func newKeepingWorld(t *testing.T, db *store.DB) (world, *poolKeeping) {
	fake := providertest.NewFake(t.TempDir())
	kind := &poolKeeping{Fake: fake, sizes: map[string][]int{}}
	return newWorldOf(t, db, kind, fake), kind
}

// A provider that keeps the pool is told its size, and the sandbox's view
// shows the pool as the provider last said it stood; nothing of the pool
// is made or counted here, and a new thread's run asks the provider to
// create, which takes from its pool.
func TestAProviderKeptPoolIsToldItsSize(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w, kind := newKeepingWorld(t, db)
		w.keep(t)
		assert.Empty(t, kind.told(w.sandbox.ID), "a sandbox without a pool is not asked about one")

		w.edit(t, `{"config":{"pool":{"size":3}}}`)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolWaiting, Size: 3}, w.pool(t), "not told yet")
		kind.answer(provider.PoolCount{Ready: 1, Creating: 2}, nil)
		assert.Equal(t, run.PoolReport{}, w.keep(t), "the provider makes the pool's instances, not this server")
		assert.Equal(t, []int{3}, kind.told(w.sandbox.ID))
		assert.Empty(t, w.fake.Live())
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolCreating, Size: 3, Ready: 1, Creating: 2}, w.pool(t))

		kind.answer(provider.PoolCount{Ready: 3}, nil)
		w.keep(t)
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolReady, Size: 3, Ready: 3}, w.pool(t))

		w.fake.ResetCalls()
		first := w.start(t, "t1")
		assert.True(t, first.Created)
		assert.Equal(t, 1, w.fake.Calls("create"), "the provider's create takes from its pool")
		assert.Zero(t, w.fake.Calls("relabel"))
	})
}

// A provider's refusal counts as a failed create: the pool backs off, says
// why, and is told again once the wait is over; a success clears it.
func TestAProviderKeptPoolThatFailsBacksOff(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w, kind := newKeepingWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":2}}}`)
		kind.answer(provider.PoolCount{}, provider.Errorf(provider.ErrUnauthorized, "fake", "keep pool", "may not create sandboxwarmpools"))
		w.keep(t)
		st := w.pool(t)
		assert.Equal(t, auxilia.PoolFailing, st.State)
		assert.Equal(t, 1, st.Failures)
		assert.Contains(t, st.Detail, "may not create sandboxwarmpools")
		w.keep(t)
		assert.Equal(t, []int{2}, kind.told(w.sandbox.ID), "not asked again before the wait is over")

		w.edit(t, `{"config":{"pool":{"size":1}}}`)
		kind.answer(provider.PoolCount{Ready: 1}, nil)
		w.keep(t)
		assert.Equal(t, []int{2, 1}, kind.told(w.sandbox.ID), "an edit starts afresh")
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolReady, Size: 1, Ready: 1}, w.pool(t))
	})
}

// The workspace's instances quota bounds the pool the provider keeps: its
// ready instances are not counted here until a thread takes one.
func TestAProviderKeptPoolStaysWithinTheInstancesQuota(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w, kind := newKeepingWorld(t, db)
		two := 2
		_, err := db.System("test").Quotas().Set(context.Background(), w.ws.ID, auxilia.QuotaSettings{Instances: &two})
		require.NoError(t, err)
		w.start(t, "t1")
		w.edit(t, `{"config":{"pool":{"size":5}}}`)
		w.keep(t)
		assert.Equal(t, []int{1}, kind.told(w.sandbox.ID), "one instance is live: room for one more")
	})
}

// A pool set to 0, or whose sandbox is deleted, is removed at the
// provider, once.
func TestAProviderKeptPoolIsRemoved(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w, kind := newKeepingWorld(t, db)
		w.edit(t, `{"config":{"pool":{"size":2}}}`)
		w.keep(t)
		w.edit(t, `{"config":{"pool":{"size":0}}}`)
		w.keep(t)
		w.keep(t)
		assert.Equal(t, []int{2, 0}, kind.told(w.sandbox.ID))
		assert.Equal(t, auxilia.PoolStatus{State: auxilia.PoolOff}, w.pool(t))

		w.edit(t, `{"config":{"pool":{"size":2}}}`)
		w.keep(t)
		kind.answer(provider.PoolCount{}, errors.New("the API server is away"))
		require.NoError(t, w.app.Sandboxes.Delete(context.Background(), w.ws.ID, w.sandbox.ID, nil, true))
		_, err := w.app.Runs.KeepPools(context.Background())
		require.Error(t, err, "a pool that could not be removed is said")
		kind.answer(provider.PoolCount{}, nil)
		w.keep(t)
		w.keep(t)
		assert.Equal(t, []int{2, 0, 2, 0, 0}, kind.told(w.sandbox.ID), "tried again until removed, then never")
	})
}
