package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A transaction whose context ends while it waits for SQLite's write lock
// fails with the context's error, not SQLite's "interrupted", so that its
// caller is told it gave up rather than that the database broke.
func TestATransactionItsContextEndedSaysSo(t *testing.T) {
	db, err := Open(context.Background(), "", t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })

	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.InTx(context.Background(), func(ctx context.Context) error {
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = db.InTx(ctx, func(ctx context.Context) error {
		return db.conn(ctx).Exec("SELECT 1").Error
	})
	close(release)
	require.NoError(t, <-held)
	require.Error(t, err, "the write lock was held throughout")
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
}
