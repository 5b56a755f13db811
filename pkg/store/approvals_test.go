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

// A binding keeps its approval rule through a replacement and with its
// agent; one written before the rule existed reads today's default, and
// the database refuses a grantor it does not know.
func TestABindingKeepsItsApprovalRule(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		db.CheckSandboxesWith(refuseNamed(""))
		sb, err := db.Sandboxes().Create(ctx, newSandbox(ws.ID, "box"), auxilia.SealedSecret{})
		require.NoError(t, err)
		agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
		require.NoError(t, err)
		tools := map[string]auxilia.ToolPolicy{"write_file": auxilia.NeedsApproval}

		strict := auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin, WithCall: false}
		require.NoError(t, db.Bindings().Put(ctx, agent.ID, sb.ID, tools, strict))
		b, err := db.Bindings().Get(ctx, agent.ID)
		require.NoError(t, err)
		assert.Equal(t, strict, b.Approval)
		got, err := db.Agents().Get(ctx, ws.ID, agent.ID)
		require.NoError(t, err)
		require.NotNil(t, got.Binding)
		assert.Equal(t, strict, got.Binding.Approval, "the agent carries its binding's rule")

		other := auxilia.ApprovalRule{GrantedBy: auxilia.GrantedBySomeoneElse, WithCall: true}
		require.NoError(t, db.Bindings().Put(ctx, agent.ID, sb.ID, tools, other))
		b, err = db.Bindings().Get(ctx, agent.ID)
		require.NoError(t, err)
		assert.Equal(t, other, b.Approval, "a new binding replaces the rule")

		sqlDB, err := db.SQL()
		require.NoError(t, err)
		older, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Older"}})
		require.NoError(t, err)
		insert := `INSERT INTO bindings (agent_id, sandbox_id, tools, created_at, updated_at) VALUES (?, ?, '{}', ?, ?)`
		if db.Dialect() == store.Postgres {
			insert = `INSERT INTO bindings (agent_id, sandbox_id, tools, created_at, updated_at) VALUES ($1, $2, '{}', $3, $4)`
		}
		_, err = sqlDB.ExecContext(ctx, insert, older.ID, sb.ID, store.Now(), store.Now())
		require.NoError(t, err)
		b, err = db.Bindings().Get(ctx, older.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.DefaultApprovalRule, b.Approval, "a binding made before the rule keeps today's")

		err = db.Bindings().Put(ctx, agent.ID, sb.ID, tools, auxilia.ApprovalRule{GrantedBy: "the_boss", WithCall: true})
		assert.Error(t, err, "the database knows its grantors")
	})
}

// An approval remembers who asked by identity as well as by name: the
// pending call a repeat finds is the first asker's.
func TestAnApprovalRemembersWhoAskedByIdentity(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ws, err := db.Workspaces().Ensure(ctx, "acme")
		require.NoError(t, err)
		agent, err := db.Agents().Create(ctx, auxilia.Agent{WorkspaceID: ws.ID, AgentSpec: auxilia.AgentSpec{Name: "Analyst"}})
		require.NoError(t, err)
		thread, err := db.Threads().Lock(ctx, ws.ID, agent.ID, "t1")
		require.NoError(t, err)
		r, _, err := db.Runs().Start(ctx, auxilia.Run{WorkspaceID: ws.ID, AgentID: agent.ID, ThreadKey: thread.Key})
		require.NoError(t, err)

		ask := auxilia.Approval{WorkspaceID: ws.ID, RunID: r.ID, ThreadID: thread.ID, Tool: "execute",
			Arguments: map[string]any{"command": "ls"}, Fingerprint: "fp", RequestedBy: "runtime", RequestedByID: "token-1", Via: "api"}
		first, err := db.Approvals().Request(ctx, ask)
		require.NoError(t, err)
		assert.Equal(t, "token-1", first.RequestedByID)

		ask.RequestedBy, ask.RequestedByID = "runtime", "token-2" // the same name, another token
		again, err := db.Approvals().Request(ctx, ask)
		require.NoError(t, err)
		assert.Equal(t, first.ID, again.ID)
		assert.Equal(t, "token-1", again.RequestedByID, "the pending call is still the first asker's")

		a, err := db.Approvals().Get(ctx, ws.ID, thread.ID, first.ID)
		require.NoError(t, err)
		assert.Equal(t, "token-1", a.RequestedByID)
		list, err := db.Approvals().List(ctx, ws.ID, thread.ID, 10)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "token-1", list[0].RequestedByID)
	})
}
