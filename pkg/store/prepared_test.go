package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	countNamed  = "SELECT COUNT(*) FROM workspaces WHERE name LIKE ?"
	addNamed    = "INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)"
	removeNamed = "DELETE FROM workspaces WHERE name LIKE ?"
)

// The embedded database runs the store's statements prepared from their
// second time on, on the pool and in transactions alike, and a prepared
// statement sees the data as it is when it runs: what a transaction wrote,
// not what it rolled back.
func TestTheEmbeddedDatabaseKeepsTheStoresStatementsPrepared(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)

	n, err := db.StoreCount(ctx, countNamed, "prep-%")
	require.NoError(t, err)
	assert.Zero(t, n)
	_, err = db.StoreExec(ctx, addNamed, "w1", "prep-1", time.Now())
	require.NoError(t, err)
	require.True(t, db.Prepared(countNamed), "prepared after its first run")
	require.True(t, db.Prepared(addNamed))

	n, err = db.StoreCount(ctx, countNamed, "prep-%")
	require.NoError(t, err)
	assert.EqualValues(t, 1, n, "the prepared read sees the write made since it was prepared")

	err = db.InTx(ctx, func(ctx context.Context) error {
		for i, id := range []string{"w2", "w3"} {
			if _, err := db.StoreExec(ctx, addNamed, id, "prep-"+id, time.Now()); err != nil {
				return err
			}
			n, err := db.StoreCount(ctx, countNamed, "prep-%")
			if err != nil {
				return err
			}
			assert.EqualValues(t, 2+i, n, "the transaction reads its own writes, one statement after the other")
		}
		return nil
	})
	require.NoError(t, err)

	rolledBack := errors.New("rolled back")
	err = db.InTx(ctx, func(ctx context.Context) error {
		removed, err := db.StoreExec(ctx, removeNamed, "prep-%")
		require.NoError(t, err)
		assert.EqualValues(t, 3, removed)
		return rolledBack
	})
	require.ErrorIs(t, err, rolledBack)
	require.True(t, db.Prepared(removeNamed))
	n, err = db.StoreCount(ctx, countNamed, "prep-%")
	require.NoError(t, err)
	assert.EqualValues(t, 3, n, "nothing of the rolled back transaction stays")
}

// A statement met first inside a transaction that holds the write lock
// runs at once, though every other connection is taken by a transaction
// waiting for that lock: preparing it never makes the first wait for a
// connection the others hold.
func TestAStatementMetFirstInALockingTransactionWaitsForNoOtherConnection(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.SQLite)
	db.LimitConnections(2)

	locked, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- db.InTx(ctx, func(ctx context.Context) error {
			close(locked)
			<-release
			// Bounded well below the busy timeout that would end the wait.
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := db.StoreCount(ctx, "SELECT COUNT(*) FROM workspaces WHERE name = ?", "met-first")
			return err
		})
	}()
	<-locked
	second := make(chan error, 1)
	go func() {
		second <- db.InTx(ctx, func(context.Context) error { return nil })
	}()
	require.Eventually(t, func() bool { return db.ConnectionsInUse() == 2 }, 10*time.Second, time.Millisecond,
		"the second transaction takes the other connection, waiting for the lock")
	close(release)
	require.NoError(t, <-first)
	require.NoError(t, <-second)
}
