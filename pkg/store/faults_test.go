package store_test

import (
	"context"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/faultproxy"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// throughProxy puts a fault proxy between a new replica and the database at dbURL.
func throughProxy(t *testing.T, dbURL, name string) (*store.DB, *faultproxy.Proxy) {
	t.Helper()
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	proxy := faultproxy.New(t, u.Host)
	u.Host = proxy.Addr()
	return replica(t, u.String(), name), proxy
}

// Every connection cut under an idle pool (a firewall, a proxy, a restart):
// the next read is tried on a new connection and succeeds.
func TestAReadOnACutConnectionIsTriedOnAnother(t *testing.T) {
	ctx := context.Background()
	db, proxy := throughProxy(t, storetest.NewPostgresDatabase(t), "cut")
	db.LimitConnections(1)
	_, err := db.Workspaces().Ensure(ctx, "default")
	require.NoError(t, err)

	proxy.Cut(t)
	_, err = db.Workspaces().ByName(ctx, "default")
	assert.NoError(t, err)
}

// A leader whose database stops answering (its network blackholed) ends its
// pass once its lease may have run out, before another replica can lead:
// the two never lead at once.
func TestALeaderCutOffStopsBeforeAnotherLeads(t *testing.T) {
	ctx := context.Background()
	dbURL := storetest.NewPostgresDatabase(t)
	leader, proxy := throughProxy(t, dbURL, "leader")
	leader.SetLeaseTerm(600 * time.Millisecond)
	other := replica(t, dbURL, "other")
	other.SetLeaseTerm(600 * time.Millisecond)

	var stopped atomic.Int64 // when the leader's pass ended, in ns since the Unix epoch
	started, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_, _ = leader.WithTryLock(ctx, "sweep", func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			stopped.Store(time.Now().UnixNano())
			return ctx.Err()
		})
	}()
	<-started
	proxy.Blackhole(t)

	deadline := time.Now().Add(10 * time.Second)
	var led time.Time
	for time.Now().Before(deadline) {
		ran, err := other.WithTryLock(ctx, "sweep", func(context.Context) error {
			led = time.Now()
			return nil
		})
		require.NoError(t, err)
		if ran {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.False(t, led.IsZero(), "the other replica never led once the leader was cut off")
	require.NotZero(t, stopped.Load(), "the cut-off leader's pass ran on while the other led")
	assert.Less(t, stopped.Load(), led.UnixNano(), "the leader stopped before the other led")
	proxy.Heal(t)
	<-done
}
