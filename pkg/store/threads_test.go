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

func TestThreadPagesCarryTheirInstances(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		db.CheckSandboxesWith(refuseNamed(""))
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
		require.NoError(t, err)
		agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
		require.NoError(t, err)

		// Three threads; the first and the last have an instance.
		want := map[string]string{}
		for _, key := range []string{"t1", "t2", "t3"} {
			thread, err := db.Threads().Lock(ctx, ws.ID, agent.ID, key)
			require.NoError(t, err)
			if key != "t2" {
				inst, err := db.Instances().Claim(ctx, thread, sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
				require.NoError(t, err)
				want[key] = inst.ID
			}
		}

		got := map[string]string{}
		req := auxilia.PageRequest{Size: 2}
		for pages := 0; ; pages++ {
			require.Less(t, pages, 3)
			page, err := db.Threads().List(ctx, ws.ID, agent.ID, req)
			require.NoError(t, err)
			for _, th := range page.Items {
				if th.Instance != nil {
					assert.Equal(t, sb.ID, th.Instance.SandboxID)
					got[th.Key] = th.Instance.ID
				} else {
					got[th.Key] = ""
				}
			}
			if page.Next == "" {
				break
			}
			req.After = page.Next
		}
		want["t2"] = ""
		assert.Equal(t, want, got)
	})
}

// A new thread is made and locked in one statement, as it is read later;
// an existing one is locked as it is, its instance with it.
func TestLockMakesANewThreadInOneStatement(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		db.CheckSandboxesWith(refuseNamed(""))
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
		require.NoError(t, err)
		agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
		require.NoError(t, err)

		var made auxilia.Thread
		statements := db.CountStatements()
		require.NoError(t, db.InTx(ctx, func(ctx context.Context) error {
			made, err = db.Threads().Lock(ctx, ws.ID, agent.ID, "t1")
			return err
		}))
		assert.Equal(t, int64(1), statements.Load(), "one statement makes the new thread and locks it")
		assert.Nil(t, made.Instance)
		assert.Nil(t, made.Kept)
		read, err := db.Threads().Get(ctx, ws.ID, agent.ID, "t1")
		require.NoError(t, err)
		assert.True(t, read.CreatedAt.Equal(made.CreatedAt), "%s, read back as %s", made.CreatedAt, read.CreatedAt)
		read.CreatedAt = made.CreatedAt
		assert.Equal(t, read, made, "as it is read back")

		inst, err := db.Instances().Claim(ctx, made, sb.ID, auxilia.NewID(), time.Now().Add(time.Minute))
		require.NoError(t, err)
		again, err := db.Threads().Lock(ctx, ws.ID, agent.ID, "t1")
		require.NoError(t, err)
		assert.Equal(t, made.ID, again.ID, "the existing thread, not another")
		require.NotNil(t, again.Instance)
		assert.Equal(t, inst.ID, again.Instance.ID)
	})
}
