package store_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// Postgres has connections to spare while at most half of its limit is in
// use; the embedded database never has, its one writer never held waiting.
func TestSpareConnections(t *testing.T) {
	assert.False(t, storetest.Open(t, store.SQLite).SpareConnections())

	db := storetest.Open(t, store.Postgres)
	db.LimitConnections(4)
	sqlDB, err := db.SQL()
	require.NoError(t, err)
	var held []*sql.Conn
	t.Cleanup(func() {
		for _, c := range held {
			_ = c.Close()
		}
	})
	hold := func() {
		c, err := sqlDB.Conn(context.Background())
		require.NoError(t, err)
		held = append(held, c)
	}
	assert.True(t, db.SpareConnections(), "none in use")
	hold()
	hold()
	assert.True(t, db.SpareConnections(), "half in use")
	hold()
	assert.False(t, db.SpareConnections(), "three of four in use")
}
