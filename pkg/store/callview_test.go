package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tool call's first look reads, in four statements sent together on
// Postgres, what the single reads would: the run, its agent with its
// binding, the sandbox bound with its sealed secret, and the run's
// instance; never another workspace's run.
func TestAToolCallsLookReadsItsRunAgentSandboxAndInstance(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		sealed := auxilia.SealedSecret{KeyID: "k1", Ciphertext: "sealed-bytes"}
		sb, err := db.Sandboxes().Create(ctx, newSandbox(f.ws.ID, "bound"), sealed)
		require.NoError(t, err)
		require.NoError(t, db.Bindings().Put(ctx, f.agent.ID, sb.ID, nil, auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin}))
		f.sb = sb
		r := startUsageRun(t, db, f)
		runs := db.In(f.ws.ID).Runs()
		require.NoError(t, runs.Touch(ctx, r.ID, r.StartedAt.Add(time.Minute), 0), "active since it started")

		statements := db.CountStatements()
		v, err := runs.CallView(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, int64(4), statements.Load(), "four statements, sent at once on Postgres")
		got, err := runs.Get(ctx, r.ID)
		require.NoError(t, err)
		assert.Equal(t, got, v.Run)
		agent, err := db.In(f.ws.ID).Agents().Get(ctx, f.agent.ID)
		require.NoError(t, err)
		assert.Equal(t, agent, v.Agent)
		read, readSealed, err := db.In(f.ws.ID).Sandboxes().GetSealed(ctx, sb.ID)
		require.NoError(t, err)
		assert.Equal(t, read, v.Sandbox)
		assert.Equal(t, readSealed, v.Sealed)
		require.True(t, v.HasInstance)
		inst, err := db.In(f.ws.ID).Instances().Get(ctx, r.InstanceID)
		require.NoError(t, err)
		assert.Equal(t, inst, v.Instance)

		require.NoError(t, db.Sandboxes().Delete(ctx, f.ws.ID, sb.ID, read.Version))
		v, err = runs.CallView(ctx, r.ID)
		require.NoError(t, err)
		assert.Empty(t, v.Sandbox.ID, "a deleted sandbox is bound to nobody")
		assert.Equal(t, sb.ID, v.Run.SandboxID)
		assert.True(t, v.Run.SandboxDeleted)

		_, err = runs.CallView(ctx, auxilia.NewID())
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "a run that is not there: %v", err)
		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		_, err = db.In(other.ID).Runs().CallView(ctx, r.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "nor is another workspace's: %v", err)
	})
}
