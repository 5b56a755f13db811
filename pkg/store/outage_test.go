package store_test

import (
	"context"
	"errors"
	"net"
	"testing"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A database that cannot be reached is an outage, not an internal error.
func TestAClosedPortIsAnOutage(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = store.Open(context.Background(), "postgres://postgres@"+addr+"/test?sslmode=disable&connect_timeout=2", "")
	require.Error(t, err)
	assert.ErrorIs(t, store.Outage(err), store.ErrUnavailable, "%v", err)
}

// Backends terminated under the store (Postgres restarted, an operator's
// pg_terminate_backend) are an outage while they last.
func TestTerminatedBackendsAreAnOutage(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewPostgresDatabase(t)
	db, err := store.Open(ctx, url, "")
	require.NoError(t, err)
	defer db.Close()
	db.LimitConnections(1)
	_, err = db.Workspaces().Ensure(ctx, "default")
	require.NoError(t, err)

	admin, err := pgx.Connect(ctx, storetest.PostgresURL())
	require.NoError(t, err)
	defer admin.Close(ctx)
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	_, err = admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", cfg.Database)
	require.NoError(t, err)

	_, err = db.Workspaces().ByName(ctx, "default")
	t.Logf("after termination: %v", err)
	if err != nil { // database/sql may already have replaced the dead connection
		assert.ErrorIs(t, store.Outage(err), store.ErrUnavailable, "%v", err)
	}
}

func TestOutageSortsTheDriversWords(t *testing.T) {
	assert.NoError(t, store.Outage(nil))
	assert.NoError(t, store.Outage(errors.New("syntax error")))
	assert.NoError(t, store.Outage(context.Canceled), "a caller who gave up is no outage")
	assert.ErrorIs(t, store.Outage(sqliteError(13)), store.ErrDiskFull, "SQLITE_FULL")
	assert.ErrorIs(t, store.Outage(sqliteError(5)), store.ErrUnavailable, "SQLITE_BUSY beyond the busy timeout")
	assert.ErrorIs(t, store.Outage(sqliteError(19)), nil, "a constraint is no outage")
}

type sqliteError int

func (e sqliteError) Error() string { return "sqlite" }
func (e sqliteError) Code() int     { return int(e) }
