package store

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitingFor waits until n wait in l.
func waitingFor(t *testing.T, l *line, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.waiting) == n
	}, 5*time.Second, time.Millisecond)
}

// fullLine is a line of one place, held: l.leave gives it back.
func fullLine(t *testing.T) *line {
	t.Helper()
	l := &line{}
	l.resize(1)
	held, err := l.enter(context.Background())
	require.NoError(t, err)
	require.True(t, held)
	return l
}

// The oldest waiter gets the place freed, whatever the order they came to
// wait in.
func TestTheLineAdmitsTheOldestFirst(t *testing.T) {
	l := fullLine(t)

	base := time.Now()
	admitted := make(chan int, 3)
	for i, age := range []int{3, 1, 2} { // seconds after base
		go func() {
			_, err := l.enter(auxilia.Arrived(context.Background(), base.Add(time.Duration(age)*time.Second)))
			if assert.NoError(t, err) {
				admitted <- age
				l.leave()
			}
		}()
		waitingFor(t, l, i+1)
	}
	l.leave()
	assert.Equal(t, []int{1, 2, 3}, []int{<-admitted, <-admitted, <-admitted})
	waits, waited := (&DB{line: l}).ConnectionWaits()
	assert.Equal(t, int64(3), waits)
	assert.Positive(t, waited)
}

// A request that yielded its turn (auxilia.YieldTurn) waits behind those
// that arrived meanwhile, and still goes before those that came later.
func TestAYieldedTurnGoesAfterTheRequestsThatArrivedMeanwhile(t *testing.T) {
	l := fullLine(t)

	base := time.Now()
	admitted := make(chan string, 3)
	for i, w := range []struct {
		name string
		ctx  context.Context
	}{
		{"later", auxilia.Arrived(context.Background(), base.Add(3*time.Second))},
		{"yielded", auxilia.YieldTurn(auxilia.Arrived(context.Background(), base), 2*time.Second)},
		{"meanwhile", auxilia.Arrived(context.Background(), base.Add(time.Second))},
	} {
		go func() {
			_, err := l.enter(w.ctx)
			if assert.NoError(t, err) {
				admitted <- w.name
				l.leave()
			}
		}()
		waitingFor(t, l, i+1)
	}
	l.leave()
	assert.Equal(t, []string{"meanwhile", "yielded", "later"}, []string{<-admitted, <-admitted, <-admitted})
}

// A waiter whose context ends leaves the line holding nothing.
func TestAWaiterWhoseContextEndsLeavesTheLine(t *testing.T) {
	l := fullLine(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := l.enter(ctx)
		done <- err
	}()
	waitingFor(t, l, 1)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	waitingFor(t, l, 0)
	l.leave()
	_, err := l.enter(context.Background())
	require.NoError(t, err, "the place is free again")
	l.leave()
	assert.Equal(t, 1, l.free)
}

// A transaction's statements pass a full line: they use its connection,
// or would otherwise wait for the place it holds itself.
func TestATransactionsStatementsPassAFullLine(t *testing.T) {
	l := fullLine(t)
	defer l.leave()
	held, err := l.enter(context.WithValue(context.Background(), txKey{}, "a transaction"))
	require.NoError(t, err)
	assert.False(t, held, "passing takes no place")
	assert.Equal(t, 0, l.free)
}

// A line grown admits those waiting; without a bound no one waits.
func TestAGrownLineAdmitsItsWaiters(t *testing.T) {
	l := fullLine(t)
	defer l.leave()
	done := make(chan struct{})
	go func() {
		_, err := l.enter(context.Background())
		if assert.NoError(t, err) {
			l.leave()
		}
		close(done)
	}()
	waitingFor(t, l, 1)
	l.resize(2)
	<-done
	l.resize(0)
	for range 100 {
		held, err := l.enter(context.Background())
		require.NoError(t, err)
		require.True(t, held, "no one waits")
		defer l.leave()
	}
}

// The line counts every place taken, at once or after a wait, and the
// time places were held, all together: two held at once count twice.
func TestTheLineTalliesThePlacesTakenAndHowLongTheyWereHeld(t *testing.T) {
	l := &line{}
	l.resize(2)
	began := time.Now()
	for range 2 {
		held, err := l.enter(context.Background())
		require.NoError(t, err)
		require.True(t, held)
	}
	admitted := make(chan struct{})
	go func() {
		if _, err := l.enter(context.Background()); assert.NoError(t, err) {
			close(admitted)
		}
	}()
	waitingFor(t, l, 1)
	time.Sleep(20 * time.Millisecond)
	l.leave() // the waiter takes this place
	<-admitted
	l.leave()
	l.leave()
	elapsed := time.Since(began)

	taken, busy := (&DB{line: l}).LineHolds()
	assert.Equal(t, int64(3), taken)
	assert.GreaterOrEqual(t, busy, 40*time.Millisecond, "both places were held through the wait")
	assert.LessOrEqual(t, busy, 2*elapsed, "never more places than the line has")
	_, again := l.holds()
	assert.Equal(t, busy, again, "nothing is held once all have left")
}
