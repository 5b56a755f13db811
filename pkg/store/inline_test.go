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

// Statements waiting for a Postgres connection get one in the order their
// requests arrived, not in the order they came to wait.
func TestStatementsGetAConnectionInTheOrderTheirRequestsArrived(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	_, err := db.Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	db.LimitConnections(1)
	defer db.LimitConnections(store.DefaultMaxConnections)

	holding, release := make(chan struct{}), make(chan struct{})
	go func() {
		assert.NoError(t, db.InTx(ctx, func(ctx context.Context) error {
			close(holding)
			<-release
			return nil
		}))
	}()
	<-holding
	base := time.Now()
	served := make(chan string, 2)
	read := func(request string, arrived time.Time) {
		go func() {
			_, err := db.Workspaces().ByName(auxilia.Arrived(ctx, arrived), "acme")
			assert.NoError(t, err)
			served <- request
		}()
	}
	read("newer", base.Add(time.Second))
	require.Eventually(t, func() bool { return db.Waiting() == 1 }, 5*time.Second, time.Millisecond)
	read("older", base)
	require.Eventually(t, func() bool { return db.Waiting() == 2 }, 5*time.Second, time.Millisecond)
	close(release)
	assert.Equal(t, "older", <-served)
	assert.Equal(t, "newer", <-served)
	waits, _ := db.ConnectionWaits()
	assert.Equal(t, int64(2), waits)
}

// The line admits no more statements at once than the store runs at once,
// nor than it has connections, whichever is fewer.
func TestTheLineAdmitsTheFewerOfTheStatementsAtOnceAndTheConnections(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	_, err := db.Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	defer db.LimitStatementsAtOnce(store.DefaultStatementsAtOnce())
	defer db.LimitConnections(store.DefaultMaxConnections)

	release := make(chan struct{})
	holding := make(chan struct{}, 3)
	hold := func() {
		go func() {
			assert.NoError(t, db.InTx(ctx, func(ctx context.Context) error {
				holding <- struct{}{}
				<-release
				return nil
			}))
		}()
	}
	served := make(chan struct{})
	read := func() {
		go func() {
			_, err := db.Workspaces().ByName(ctx, "acme")
			assert.NoError(t, err)
			served <- struct{}{}
		}()
	}
	assertWaits := func(n int, why string) {
		t.Helper()
		require.Eventually(t, func() bool { return db.Waiting() == n }, 5*time.Second, time.Millisecond, why)
	}

	db.LimitConnections(3)
	db.LimitStatementsAtOnce(2)
	hold()
	hold()
	<-holding
	<-holding
	read()
	assertWaits(1, "two run at once, of three connections")

	db.LimitStatementsAtOnce(0)
	<-served
	assertWaits(0, "without a bound of its own, the line has a place for each connection")
	hold()
	<-holding
	read()
	assertWaits(1, "three connections, held")

	db.LimitStatementsAtOnce(5)
	assertWaits(1, "no more places than connections")
	db.LimitConnections(4)
	<-served
	close(release)
}
