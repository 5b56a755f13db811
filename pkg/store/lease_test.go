package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replica opens a handle on url as a server would, named so that its
// backends can be told apart from another replica's.
func replica(t *testing.T, url, name string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), url+"&application_name="+name, "")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// terminate ends every backend of the named replica, as an operator's
// pg_terminate_backend or a cut network would.
func terminate(t *testing.T, name string) int {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, storetest.PostgresURL())
	require.NoError(t, err)
	defer admin.Close(ctx)
	var n int
	require.NoError(t, admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1`, name).Scan(&n))
	return n
}

// Two replicas: the first leads a pass, and every one of its connections is
// terminated while the pass runs. The second still may not lead the same
// job until the first's pass is over.
func TestALeaderWhoseConnectionsAreCutKeepsItsJob(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewPostgresDatabase(t)
	first, second := replica(t, url, "first"), replica(t, url, "second")

	started, finish := make(chan struct{}), make(chan struct{})
	led := make(chan error, 1)
	go func() {
		ran, err := first.WithTryLock(ctx, "sweep", func(ctx context.Context) error {
			close(started)
			select {
			case <-finish:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		if err == nil && !ran {
			err = errors.New("the first replica did not lead")
		}
		led <- err
	}()
	<-started
	require.Positive(t, terminate(t, "first"), "the first replica's connections are cut")

	for range 5 {
		ran, err := second.WithTryLock(ctx, "sweep", func(context.Context) error { return nil })
		require.NoError(t, err)
		assert.False(t, ran, "the second replica led a pass the first still runs")
		time.Sleep(50 * time.Millisecond)
	}
	close(finish)
	require.NoError(t, <-led, "the first replica's pass ran to its end")
	ran, err := second.WithTryLock(ctx, "sweep", func(context.Context) error { return nil })
	require.NoError(t, err)
	assert.True(t, ran, "once the pass is over, any replica leads the next")
}

// A leader that finds its lease held by another, or cannot renew it before
// it runs out, stops: its pass's context ends.
func TestALeaderThatLosesItsLeaseStops(t *testing.T) {
	ctx := context.Background()
	url := storetest.NewPostgresDatabase(t)
	first := replica(t, url, "first")
	first.SetLeaseTerm(300 * time.Millisecond)

	t.Run("taken by another", func(t *testing.T) {
		stolen := make(chan struct{})
		go func() {
			time.Sleep(50 * time.Millisecond)
			sqlDB, err := first.SQL()
			if assert.NoError(t, err) {
				_, err = sqlDB.Exec("UPDATE job_leases SET holder = 'another' WHERE name = 'sweep'")
				assert.NoError(t, err)
			}
			close(stolen)
		}()
		ran, err := first.WithTryLock(ctx, "sweep", func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				return nil // a pass that ends well is still told it lost its lease
			case <-time.After(5 * time.Second):
				return errors.New("the pass ran on without its lease")
			}
		})
		<-stolen
		assert.True(t, ran)
		assert.ErrorContains(t, err, "lease was lost")
	})

	t.Run("not renewed in time", func(t *testing.T) {
		sqlDB, err := first.SQL()
		require.NoError(t, err)
		_, err = sqlDB.Exec("DELETE FROM job_leases")
		require.NoError(t, err)
		first.LimitConnections(1)
		defer first.LimitConnections(store.DefaultMaxConnections)
		began := time.Now()
		ran, err := first.WithTryLock(ctx, "sweep", func(ctx context.Context) error {
			// Hold the only connection: no renewal can reach the database.
			tx, err := sqlDB.BeginTx(context.Background(), nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Second):
				return errors.New("the pass ran on past its lease")
			}
		})
		assert.True(t, ran)
		assert.ErrorContains(t, err, "not renewed")
		assert.Less(t, time.Since(began), 2*time.Second)
	})
}
