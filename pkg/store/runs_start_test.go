package store_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run is answered as Get reads it without being read back: what Get
// joins, the caller gave.
func TestAStartedRunIsAnsweredAsItIsRead(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		r := startUsageRun(t, db, f)
		runs := db.In(f.ws.ID).Runs()
		started, err := runs.Start(ctx, auxilia.Run{AgentID: f.agent.ID, ThreadID: f.thread.ID, ThreadKey: f.thread.Key,
			SandboxID: f.sb.ID, SandboxName: f.sb.Name, Provider: f.sb.Provider, InstanceID: r.InstanceID,
			InstanceRef: "ref-1", Notice: "hello"})
		require.NoError(t, err)
		read, err := runs.Get(ctx, started.ID)
		require.NoError(t, err)
		assert.Equal(t, read.ID, started.ID)
		assert.Equal(t, read.StartedAt.UTC(), started.StartedAt.UTC())
		assert.Equal(t, read.LastActivityAt.UTC(), started.LastActivityAt.UTC())
		// The same instants, in the locations their scans gave them.
		started.StartedAt, started.LastActivityAt = read.StartedAt, read.LastActivityAt
		assert.Equal(t, read, started)

		earlier, err := runs.Get(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunCompleted, earlier.Status, "the thread's earlier run ended")
	})
}
