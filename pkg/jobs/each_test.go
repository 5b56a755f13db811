package jobs_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/jobs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type item struct {
	group string
	stuck bool
}

func groupOf(it item) string { return it.group }

// Items that never answer hold their own slots until their own deadline:
// another workspace's items are all done meanwhile, even listed after them.
func TestEachLetsNoStuckItemHoldUpTheOthers(t *testing.T) {
	var items []item
	for range 4 {
		items = append(items, item{group: "stuck", stuck: true})
	}
	for range 4 {
		items = append(items, item{group: "healthy"})
	}
	healthyDone := make(chan struct{}, 4)
	var stuckEnded atomic.Int32
	var deadlineSeen atomic.Int32
	start := time.Now()
	jobs.Each(context.Background(), items, jobs.Spread{Parallel: 4, Deadline: 500 * time.Millisecond}, groupOf,
		func(ctx context.Context, it item) {
			if !it.stuck {
				assert.Zero(t, stuckEnded.Load(), "a healthy item waited for a stuck one")
				healthyDone <- struct{}{}
				return
			}
			<-ctx.Done()
			if ctx.Err() == context.DeadlineExceeded {
				deadlineSeen.Add(1)
			}
			stuckEnded.Add(1)
		})
	assert.Len(t, healthyDone, 4)
	assert.EqualValues(t, 4, deadlineSeen.Load(), "each stuck item ended at its own deadline")
	assert.Less(t, time.Since(start), 3*time.Second, "the stuck items ran beside one another")
}

// At most Parallel run at once, and one group with most of the items takes
// no more than its share while another has work.
func TestEachKeepsItsBoundAndAFairShare(t *testing.T) {
	var items []item
	for range 20 {
		items = append(items, item{group: "big"})
	}
	items = append(items, item{group: "small"}, item{group: "small"})
	var (
		mu               sync.Mutex
		now, most        int
		big, mostBig     int
		smallStartedWith = -1
	)
	jobs.Each(context.Background(), items, jobs.Spread{Parallel: 4}, groupOf, func(ctx context.Context, it item) {
		mu.Lock()
		now++
		most = max(most, now)
		if it.group == "big" {
			big++
			mostBig = max(mostBig, big)
		} else if smallStartedWith < 0 {
			smallStartedWith = big
		}
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		now--
		if it.group == "big" {
			big--
		}
		mu.Unlock()
	})
	assert.Equal(t, 4, most)
	assert.Equal(t, 4, mostBig, "alone, a group has every slot")
	assert.LessOrEqual(t, smallStartedWith, 2, "the small group started while the big one held at most its share")
}

// Once the pass's context ends, nothing more starts.
func TestEachStartsNothingOnceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	items := make([]item, 10)
	var ran atomic.Int32
	jobs.Each(ctx, items, jobs.Spread{Parallel: 2}, groupOf, func(ctx context.Context, it item) {
		ran.Add(1)
		cancel()
		<-ctx.Done()
	})
	require.LessOrEqual(t, ran.Load(), int32(2))
}
