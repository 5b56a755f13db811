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

// A run start's first look reads its thread's live instance, its agent
// with the binding and the sandbox bound with its sealed secret, as each
// is read on its own.
func TestARunStartsLookReadsItsInstanceAgentAndSandbox(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newUsageFixture(t, db)
		threads := db.In(f.ws.ID).Threads()

		v, err := threads.StartView(ctx, f.agent.ID, f.thread.Key, nil)
		require.NoError(t, err)
		assert.False(t, v.Live, "the thread has no instance yet")
		assert.Nil(t, v.Agent.Binding)
		assert.Empty(t, v.Sandbox.ID, "the agent is bound to no sandbox")

		sealed := auxilia.SealedSecret{KeyID: "k1", Ciphertext: "sealed-bytes"}
		sb, err := db.Sandboxes().Create(ctx, newSandbox(f.ws.ID, "bound"), sealed)
		require.NoError(t, err)
		require.NoError(t, db.Bindings().Put(ctx, f.agent.ID, sb.ID, nil, auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin}))
		r := startUsageRun(t, db, f)

		statements := db.CountStatements()
		v, err = threads.StartView(ctx, f.agent.ID, f.thread.Key, nil)
		require.NoError(t, err)
		assert.Equal(t, int64(3), statements.Load(), "three statements, sent at once on Postgres")
		require.True(t, v.Live)
		inst, err := db.In(f.ws.ID).Instances().Get(ctx, r.InstanceID)
		require.NoError(t, err)
		assert.Equal(t, inst.ID, v.Instance.ID)
		assert.Equal(t, inst.ProviderRef, v.Instance.ProviderRef)
		agent, err := db.In(f.ws.ID).Agents().Get(ctx, f.agent.ID)
		require.NoError(t, err)
		assert.Equal(t, agent.ID, v.Agent.ID)
		assert.Equal(t, agent.Binding, v.Agent.Binding)
		read, readSealed, err := db.In(f.ws.ID).Sandboxes().GetSealed(ctx, sb.ID)
		require.NoError(t, err)
		assert.Equal(t, read.ID, v.Sandbox.ID)
		assert.Equal(t, read.Version, v.Sandbox.Version)
		assert.Equal(t, readSealed, v.Sealed)

		require.NoError(t, db.Sandboxes().Delete(ctx, f.ws.ID, sb.ID, read.Version))
		v, err = threads.StartView(ctx, f.agent.ID, f.thread.Key, nil)
		require.NoError(t, err)
		assert.Empty(t, v.Sandbox.ID, "a deleted sandbox is bound to nobody")

		_, err = threads.StartView(ctx, auxilia.NewID(), f.thread.Key, nil)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "an agent that is not there: %v", err)
		other, err := db.Workspaces().Ensure(ctx, "other")
		require.NoError(t, err)
		_, err = db.In(other.ID).Threads().StartView(ctx, f.agent.ID, f.thread.Key, nil)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "nor is another workspace's: %v", err)
	})
}

// Reads sent together reach Postgres at once: they run as one implicit
// transaction, which a statement sent after the one before it answered
// would not.
func TestReadsSentTogetherRunInOneRoundTrip(t *testing.T) {
	ctx := context.Background()
	db := storetest.Open(t, store.Postgres)
	starts, err := db.TransactionStarts(ctx, 3)
	require.NoError(t, err)
	assert.Equal(t, starts[0], starts[1])
	assert.Equal(t, starts[0], starts[2])

	one, err := db.TransactionStarts(ctx, 1)
	require.NoError(t, err)
	assert.True(t, one[0].After(starts[0]), "the next read is a transaction of its own")
}
