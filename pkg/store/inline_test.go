package store_test

import (
	"context"
	"testing"
	"time"

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
			_, err := db.Workspaces().ByName(store.Arrived(ctx, arrived), "acme")
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
