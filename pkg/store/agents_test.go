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

// An agent is read with its binding in one statement, as the list reads
// it; its sandbox deleted, it reads with none.
func TestAnAgentIsReadWithItsBindingInOneStatement(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		db.CheckSandboxesWith(refuseNamed(""))
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
		require.NoError(t, err)
		agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst", Emoji: "🔬"}})
		require.NoError(t, err)
		unbound, err := db.Agents().Get(ctx, ws.ID, agent.ID)
		require.NoError(t, err)
		assert.Equal(t, agent.ID, unbound.ID)
		assert.Equal(t, agent.AgentSpec, unbound.AgentSpec)
		assert.Nil(t, unbound.Binding, "without a binding")

		tools := map[string]auxilia.ToolPolicy{"write_file": auxilia.NeedsApproval}
		rule := auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin, WithCall: true}
		require.NoError(t, db.Bindings().Put(ctx, agent.ID, sb.ID, tools, rule))
		statements := db.CountStatements()
		got, err := db.Agents().Get(ctx, ws.ID, agent.ID)
		require.NoError(t, err)
		assert.Equal(t, int64(1), statements.Load())
		page, err := db.Agents().List(ctx, ws.ID, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		assert.Equal(t, page.Items[0], got, "as the list reads it")
		require.NotNil(t, got.Binding)
		assert.Equal(t, agent.ID, got.Binding.AgentID)
		assert.Equal(t, sb.ID, got.Binding.SandboxID)
		assert.Equal(t, tools, got.Binding.Tools)
		assert.Equal(t, rule, got.Binding.Approval)
		assert.Equal(t, "Analyst", got.Name)

		require.NoError(t, db.Sandboxes().Delete(ctx, ws.ID, sb.ID, sb.Version))
		gone, err := db.Agents().Get(ctx, ws.ID, agent.ID)
		require.NoError(t, err)
		assert.Nil(t, gone.Binding, "its sandbox deleted, it has none")
	})
}
