package run_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An open terminal is the thread's activity, so the idle job does not
// pause its instance, and tells the provider the instance is in use;
// once closed it does neither.
func TestAnOpenTerminalKeepsItsRunAndInstanceInUse(t *testing.T) {
	run.SetTerminalTouchEvery(t, 100*time.Millisecond)
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := newWorld(t, db, func(o *run.Options) { o.KeepAliveEvery = 100 * time.Millisecond })
		r := w.start(t, "t1")
		activity := func() time.Time {
			th, err := w.app.Runs.Thread(ctx, w.ws.ID, w.agent.ID, "t1")
			require.NoError(t, err)
			require.NotNil(t, th.LastActivityAt)
			return *th.LastActivityAt
		}
		before := activity()

		term, err := w.app.Runs.OpenTerminal(ctx, w.ws.ID, r.ID, provider.DefaultTermSize, false)
		require.NoError(t, err)
		go func() { _, _ = io.Copy(io.Discard, term) }()
		assert.Equal(t, r.ID, term.Run.ID)
		assert.Equal(t, "fake", term.Provider)
		w.fake.ResetCalls()
		time.Sleep(time.Second)
		assert.True(t, activity().After(before.Add(500*time.Millisecond)), "the thread is active while its terminal is open")
		assert.GreaterOrEqual(t, w.fake.Calls("keepalive"), 3, "the provider is told the instance is in use")

		require.NoError(t, term.Close())
		require.NoError(t, term.Close(), "closing twice is fine")
		closedAt, calls := activity(), w.fake.Calls("keepalive")
		time.Sleep(500 * time.Millisecond)
		assert.Equal(t, closedAt, activity(), "a closed terminal is no activity")
		assert.Equal(t, calls, w.fake.Calls("keepalive"))
	})
}
