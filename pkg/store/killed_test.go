package store_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The first statement on a connection whose backend was terminated is
// tried on another, as database/sql does for a connection it knows bad: a
// read, a write, and a transaction (at its BEGIN) all succeed.
func TestTheFirstRequestOnAKilledConnectionIsTriedOnAnother(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewPostgresDatabase(t)
	db := replica(t, url, "killed")
	db.LimitConnections(1) // the one pooled connection is the killed one
	_, err := db.Workspaces().Ensure(ctx, "default")
	require.NoError(t, err)

	cases := map[string]func() error{
		"a read": func() error {
			_, err := db.Workspaces().ByName(ctx, "default")
			return err
		},
		"a write": func() error {
			_, err := db.Workspaces().Ensure(ctx, "another")
			return err
		},
		"a transaction": func() error {
			return db.InTx(ctx, func(ctx context.Context) error {
				_, err := db.Workspaces().ByName(ctx, "default")
				return err
			})
		},
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, db.Ping(ctx))
			require.Equal(t, 1, terminate(t, "killed"))
			assert.NoError(t, call())
		})
	}
}

// Which failures are tried again: a terminated backend's always, a broken
// connection's only for a statement that only reads.
func TestWhatIsTriedAgainOnAKilledConnection(t *testing.T) {
	assert.True(t, store.RetrySafe(store.PgError("57P01"), "INSERT INTO x VALUES (1)"))
	assert.True(t, store.RetrySafe(store.PgError("57P02"), "UPDATE x SET y = 1"))
	assert.False(t, store.RetrySafe(store.PgError("23505"), "SELECT 1"), "a constraint is no kill")
	assert.True(t, store.RetrySafe(store.BrokenConn(), "SELECT * FROM x"))
	assert.False(t, store.RetrySafe(store.BrokenConn(), "select * from x for update"))
	assert.False(t, store.RetrySafe(store.BrokenConn(), "INSERT INTO x VALUES (1)"), "it may have been done")
	assert.False(t, store.RetrySafe(nil, "SELECT 1"))
}
