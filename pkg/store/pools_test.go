package store_test

import (
	"context"
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
