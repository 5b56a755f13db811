package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pool instance is marked paused only while no thread has it, keeping
// the time it became ready; a paused one is still claimed (its claimer
// sees it paused, to resume it), and counted as ready and as paused.
func TestAPausedPoolInstanceIsStillClaimed(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		var made []auxilia.Instance
		for i := range 2 {
			inst, err := db.Pools().Add(ctx, f.sb, time.Now().Add(time.Minute))
			require.NoError(t, err)
			_, err = db.Instances().MarkLive(ctx, inst.ID, "ref-"+string(rune('a'+i)), "/workspace", auxilia.SealedSecret{})
			require.NoError(t, err)
			inst, err = db.Instances().Get(ctx, inst.ID)
			require.NoError(t, err)
			made = append(made, inst)
			step()
		}
		fresh := time.Now().Add(-time.Hour)

		running, err := db.Pools().Running(ctx, f.ws.ID, 10)
		require.NoError(t, err)
		require.Len(t, running, 2)
		assert.Equal(t, made[0].ID, running[0].ID, "the longest ready first")

		marked, err := db.Pools().MarkPaused(ctx, made[0].ID, time.Now())
		require.NoError(t, err)
		assert.True(t, marked)
		again, err := db.Pools().MarkPaused(ctx, made[0].ID, time.Now())
		require.NoError(t, err)
		assert.False(t, again, "paused already")
		got, err := db.Instances().Get(ctx, made[0].ID)
		require.NoError(t, err)
		assert.NotNil(t, got.PausedAt)
		assert.True(t, got.UpdatedAt.Equal(made[0].UpdatedAt), "still ready since it was made live")
		running, err = db.Pools().Running(ctx, f.ws.ID, 10)
		require.NoError(t, err)
		require.Len(t, running, 1)
		assert.Equal(t, made[1].ID, running[0].ID)
		ready, creating, err := db.Pools().Count(ctx, f.sb, fresh)
		require.NoError(t, err)
		assert.Equal(t, [2]int{2, 0}, [2]int{ready, creating})
		paused, err := db.Pools().Paused(ctx, f.sb, fresh)
		require.NoError(t, err)
		assert.Equal(t, 1, paused)

		claimed, ok, err := db.Pools().Claim(ctx, f.thread, f.sb, fresh)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, made[0].ID, claimed.ID, "the longest ready first, paused or not")
		assert.NotNil(t, claimed.PausedAt, "its claimer sees it paused")
		paused, err = db.Pools().Paused(ctx, f.sb, fresh)
		require.NoError(t, err)
		assert.Zero(t, paused)

		other, err := db.Threads().Lock(ctx, f.ws.ID, f.agent.ID, "t2")
		require.NoError(t, err)
		second, ok, err := db.Pools().Claim(ctx, other, f.sb, fresh)
		require.NoError(t, err)
		require.True(t, ok)
		marked, err = db.Pools().MarkPaused(ctx, second.ID, time.Now())
		require.NoError(t, err)
		assert.False(t, marked, "a claimed instance is its thread's")
		running, err = db.Pools().Running(ctx, f.ws.ID, 10)
		require.NoError(t, err)
		assert.Empty(t, running)
	})
}

// A new thread's start claims a ready pool instance and makes its thread
// at once, or does nothing: not for a thread met before, not from an empty
// pool, not where a threads-per-agent quota is in force (its own or the
// default). The instance's usage is the thread's agent's from the claim.
func TestANewThreadIsMadeWithItsPoolsInstanceOrNotAtAll(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		fresh := time.Now().Add(-time.Hour)
		readyPoolInstances(t, db, f, 2)
		pools := db.In(f.ws.ID).Pools()
		claim := func(key string) (auxilia.Instance, bool) {
			t.Helper()
			inst, ok, err := pools.ClaimForNewThread(ctx, f.agent.ID, key, f.sb, fresh)
			require.NoError(t, err)
			return inst, ok
		}
		notMade := func(key string) {
			t.Helper()
			_, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, key)
			assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "thread %s is not made: %v", key, err)
		}

		_, ok := claim("t1")
		assert.False(t, ok, "t1 exists: its choice is made under its lock")
		ready, _, err := db.Pools().Count(ctx, f.sb, fresh)
		require.NoError(t, err)
		assert.Equal(t, 2, ready, "nothing was claimed")

		db.SetQuotaDefaults(auxilia.Quotas{ThreadsPerAgent: 10})
		_, ok = claim("bounded-by-default")
		assert.False(t, ok, "the default quota is counted under the lock")
		notMade("bounded-by-default")
		_, err = db.System("test").Quotas().Set(ctx, f.ws.ID, auxilia.QuotaSettings{ThreadsPerAgent: intp(0)})
		require.NoError(t, err)

		first, ok := claim("new")
		require.True(t, ok, "the workspace's own setting lifts the default")
		thread, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, "new")
		require.NoError(t, err)
		assert.Equal(t, thread.ID, first.ThreadID)
		require.NotNil(t, thread.Instance)
		assert.Equal(t, first.ID, thread.Instance.ID)
		assert.Equal(t, auxilia.InstanceLive, thread.Instance.Status)
		got, err := db.In(f.ws.ID).Usage().Intervals(ctx, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		require.NoError(t, err)
		var theThreads int
		for _, iv := range got {
			if iv.InstanceID == first.ID && iv.ThreadID == thread.ID {
				theThreads++
				assert.Equal(t, f.agent.ID, iv.AgentID)
				assert.Equal(t, "new", iv.ThreadKey)
			}
		}
		assert.Equal(t, 1, theThreads, "the claim begins the thread's interval")

		_, err = db.System("test").Quotas().Set(ctx, f.ws.ID, auxilia.QuotaSettings{ThreadsPerAgent: intp(5)})
		require.NoError(t, err)
		_, ok = claim("bounded")
		assert.False(t, ok)
		notMade("bounded")
		_, err = db.System("test").Quotas().Set(ctx, f.ws.ID, auxilia.QuotaSettings{ThreadsPerAgent: intp(0)})
		require.NoError(t, err)

		second, ok := claim("other")
		require.True(t, ok)
		assert.NotEqual(t, first.ID, second.ID)
		_, ok = claim("late")
		assert.False(t, ok, "the pool is empty")
		notMade("late")
	})
}

// Starts of one new thread at once make it once, with one instance, and
// starts of new threads at once never share one, nor leave one claimed
// by no thread.
func TestNewThreadsClaimingAtOnceTakeAnInstanceEach(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		readyPoolInstances(t, db, f, 6)
		pools := db.In(f.ws.ID).Pools()
		fresh := time.Now().Add(-time.Hour)
		keys := []string{"same", "same", "same", "a", "b", "c", "d"}
		claimed := make([]auxilia.Instance, len(keys))
		var wg sync.WaitGroup
		for i, key := range keys {
			wg.Go(func() {
				inst, ok, err := pools.ClaimForNewThread(ctx, f.agent.ID, key, f.sb, fresh)
				if assert.NoError(t, err) && ok {
					claimed[i] = inst
				}
			})
		}
		wg.Wait()
		byThread, sames := map[string]string{}, 0
		for i, inst := range claimed {
			if inst.ID == "" {
				continue
			}
			if keys[i] == "same" {
				sames++
			}
			_, twice := byThread[inst.ThreadID]
			assert.False(t, twice, "thread %s claimed twice", inst.ThreadID)
			byThread[inst.ThreadID] = inst.ID
		}
		assert.Equal(t, 1, sames, "one start of the same thread claims")
		handedOut := map[string]bool{}
		for _, id := range byThread {
			assert.False(t, handedOut[id], "instance %s handed out twice", id)
			handedOut[id] = true
		}
		// A claim may find every ready instance picked by the others at
		// that moment, some of which then make nothing (their thread was
		// made meanwhile): its start then claims under the thread's lock.
		ready, _, err := db.Pools().Count(ctx, f.sb, fresh)
		require.NoError(t, err)
		assert.Equal(t, 6, len(byThread)+ready, "each instance is claimed once, or still ready")
		assert.GreaterOrEqual(t, len(byThread), 4)
	})
}

// readyPoolInstances adds n live instances to the fixture's sandbox's pool.
func readyPoolInstances(t *testing.T, db *store.DB, f usageFixture, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		inst, err := db.Pools().Add(ctx, f.sb, time.Now().Add(time.Minute))
		require.NoError(t, err)
		_, err = db.Instances().MarkLive(ctx, inst.ID, fmt.Sprintf("ref-%d", i), "/workspace", auxilia.SealedSecret{})
		require.NoError(t, err)
	}
}

// A new thread's start view claims an instance of its agent's pool in
// the same round trip on Postgres, where the agent is still bound to the
// sandbox at the version its claim names, and nothing otherwise: not for
// a thread made already (a warm start's view), not after the sandbox
// changed, not once the agent is bound elsewhere, not for another
// workspace that names the agent. Elsewhere the view tries no claim.
func TestAStartViewClaimsOnlyAsItsAgentIsBoundStill(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		rule := auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin}
		require.NoError(t, db.Bindings().Put(ctx, f.agent.ID, f.sb.ID, nil, rule))
		readyPoolInstances(t, db, f, 2)
		fresh := time.Now().Add(-time.Hour)
		threads := db.In(f.ws.ID).Threads()
		asked := auxilia.PoolClaim{SandboxID: f.sb.ID, Version: f.sb.Version, FreshAfter: fresh}
		view := func(key string, claim auxilia.PoolClaim) auxilia.StartView {
			t.Helper()
			v, err := threads.StartView(ctx, f.agent.ID, key, &claim)
			require.NoError(t, err)
			return v
		}
		ready := func() int {
			t.Helper()
			n, _, err := db.Pools().Count(ctx, f.sb, fresh)
			require.NoError(t, err)
			return n
		}
		notMade := func(key string) {
			t.Helper()
			_, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, key)
			assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "thread %s is not made: %v", key, err)
		}

		if db.Dialect() != store.Postgres {
			v := view("new", asked)
			assert.False(t, v.Claim.Tried, "the start claims on its own")
			assert.Nil(t, v.Claim.Instance)
			assert.Equal(t, 2, ready())
			notMade("new")
			return
		}

		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		_, err = db.In(other.ID).Threads().StartView(ctx, f.agent.ID, "stolen", &asked)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "another workspace's agent: %v", err)
		assert.Equal(t, 2, ready(), "another workspace claims nothing with this agent's plan")
		_, err = db.Threads().Get(ctx, other.ID, f.agent.ID, "stolen")
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "nor makes the thread: %v", err)

		v := view("t1", asked)
		assert.True(t, v.Claim.Tried)
		assert.Nil(t, v.Claim.Instance, "t1 was made before")
		assert.Equal(t, 2, ready())

		statements := db.CountStatements()
		v = view("new", asked)
		assert.Equal(t, int64(4), statements.Load(), "the claim goes with the view's three reads")
		require.NotNil(t, v.Claim.Instance)
		assert.False(t, v.Live, "the view read the thread before the claim made it")
		assert.Equal(t, f.agent.ID, v.Agent.ID)
		assert.Equal(t, f.sb.ID, v.Sandbox.ID)
		thread, err := db.Threads().Get(ctx, f.ws.ID, f.agent.ID, "new")
		require.NoError(t, err)
		require.NotNil(t, thread.Instance)
		assert.Equal(t, v.Claim.Instance.ID, thread.Instance.ID)
		assert.Equal(t, thread.ID, v.Claim.Instance.ThreadID)
		assert.Equal(t, 1, ready())

		stale := asked
		stale.Version++
		assert.Nil(t, view("after-an-edit", stale).Claim.Instance, "a version the sandbox is not at")
		notMade("after-an-edit")

		elsewhere, err := db.Sandboxes().Create(ctx, newSandbox(f.ws.ID, "elsewhere"), auxilia.SealedSecret{})
		require.NoError(t, err)
		require.NoError(t, db.Bindings().Put(ctx, f.agent.ID, elsewhere.ID, nil, rule))
		v = view("rebound", asked)
		assert.Nil(t, v.Claim.Instance, "the agent is bound elsewhere")
		assert.Equal(t, elsewhere.ID, v.Sandbox.ID)
		notMade("rebound")
		assert.Equal(t, 1, ready())
	})
}
