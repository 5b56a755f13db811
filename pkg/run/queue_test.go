package run

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A freed slot goes to the longest waiter; one who gives up leaves the
// line and holds nothing.
func TestAQueueServesItsWaitersInTheOrderTheyCame(t *testing.T) {
	q := newQueue(1)
	waited, err := q.enter(context.Background())
	require.NoError(t, err)
	assert.False(t, waited, "a free slot is taken at once")
	order := make(chan int, 3)
	gaveUp, giveUp := context.WithCancel(context.Background())
	for i := range 3 {
		ctx := context.Background()
		if i == 1 {
			ctx = gaveUp
		}
		go func() {
			if waited, err := q.enter(ctx); err != nil || !waited {
				return
			}
			order <- i
			q.leave()
		}()
		// Each in turn, so that the line's order is known.
		require.Eventually(t, func() bool { return q.waiters() == i+1 }, 10*time.Second, time.Millisecond)
	}
	giveUp()
	require.Eventually(t, func() bool { return q.waiters() == 2 }, 10*time.Second, time.Millisecond)
	q.leave()
	assert.Equal(t, 0, <-order)
	assert.Equal(t, 2, <-order)
	waited, err = q.enter(context.Background())
	require.NoError(t, err, "the slot was given back")
	assert.False(t, waited)
}

// Each sandbox has its own line, forgotten once no one uses it.
func TestEachSandboxHasItsOwnQueue(t *testing.T) {
	qs := newSandboxQueues(1)
	leaveA, err := qs.enter(context.Background(), "a")
	require.NoError(t, err)
	leaveB, err := qs.enter(context.Background(), "b")
	require.NoError(t, err, "b does not wait for a")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = qs.enter(ctx, "a")
	assert.ErrorIs(t, err, context.Canceled, "a's slot is taken")
	leaveA()
	leaveB()
	assert.Empty(t, qs.bySandbox)
}
