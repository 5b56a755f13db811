package run_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Who acts in these tests: two member tokens of the same name (names are
// not unique) and an admin token.
func tokens(ws auxilia.Workspace) (runtime, twin, admin context.Context) {
	as := func(id, name string, role auxilia.Role) context.Context {
		return auxilia.WithActor(context.Background(), auxilia.Actor{TokenID: id, TokenName: name, Role: role, Workspace: ws})
	}
	return as("tok-runtime", "agent runtime", auxilia.RoleMember), as("tok-twin", "agent runtime", auxilia.RoleMember),
		as("tok-admin", "Ada", auxilia.RoleAdmin)
}

// bindWith binds the world's agent, as the command line, with write_file
// and execute needing approval under the rule.
func (w world) bindWith(t *testing.T, rule auxilia.ApprovalRule) {
	t.Helper()
	_, err := w.app.Agents.Bind(context.Background(), w.ws.ID, w.agent.ID, w.sandbox.ID,
		map[string]string{"write_file": "needs_approval", "execute": "needs_approval"}, &rule, nil)
	require.NoError(t, err)
}

func (w world) write(ctx context.Context, r auxilia.Run, path string, approved bool) error {
	_, err := w.app.Runs.Write(ctx, w.ws.ID, r.ID, run.WriteInput{Path: path, Content: []byte("hello")}, approved)
	return err
}

var (
	someoneElse = auxilia.ApprovalRule{GrantedBy: auxilia.GrantedBySomeoneElse, WithCall: true}
	adminOnly   = auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin, WithCall: true}
	inConsole   = auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAnyone, WithCall: false}
)

// The binding's rule says who may approve a pending call in the console:
// under someone_else not the token that made it (judged by the token, not
// its name), under admin only an admin token. Anyone may deny.
func TestTheApprovalRuleSaysWhoMayApprove(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		runtime, twin, admin := tokens(w.ws)
		names := map[context.Context]string{runtime: "the caller", twin: "a twin", admin: "an admin"}
		for i, tc := range []struct {
			rule            auxilia.ApprovalRule
			caller, decider context.Context
			may             bool
		}{
			{auxilia.DefaultApprovalRule, runtime, runtime, true},
			{someoneElse, runtime, runtime, false},
			{someoneElse, runtime, twin, true},
			{someoneElse, runtime, admin, true},
			{someoneElse, admin, admin, false},
			{adminOnly, runtime, runtime, false},
			{adminOnly, runtime, twin, false},
			{adminOnly, runtime, admin, true},
			{adminOnly, admin, admin, true},
		} {
			t.Run(fmt.Sprintf("%s, made by %s, approved by %s", tc.rule.GrantedBy, names[tc.caller], names[tc.decider]), func(t *testing.T) {
				w.bindWith(t, tc.rule)
				r := w.start(t, fmt.Sprintf("t%d", i))
				id := approvalID(t, w.write(tc.caller, r, "a.txt", false))

				list, rule, err := w.app.Runs.ListApprovals(tc.decider, w.ws.ID, r.ID)
				require.NoError(t, err)
				assert.Equal(t, tc.rule, rule)
				require.Len(t, list, 1)
				assert.Equal(t, tc.may, run.CheckGrant(tc.decider, rule, list[0]) == nil, "the list says what a decision does")

				decided, _, err := w.app.Runs.Decide(tc.decider, w.ws.ID, r.ID, id, true)
				if tc.may {
					require.NoError(t, err)
					assert.Equal(t, auxilia.ApprovalApproved, decided.Status)
					require.NoError(t, w.write(tc.caller, r, "a.txt", false), "the approved call goes ahead")
					return
				}
				require.True(t, auxilia.IsCode(err, auxilia.CodeGrantNotAllowed), "%v", err)
				assert.Equal(t, string(tc.rule.GrantedBy), err.(*auxilia.Error).Extra["granted_by"])
				list, _, err = w.app.Runs.ListApprovals(tc.decider, w.ws.ID, r.ID)
				require.NoError(t, err)
				assert.Equal(t, auxilia.ApprovalPending, list[0].Status, "a refused approval decides nothing")
				approvalID(t, w.write(tc.caller, r, "a.txt", false))

				decided, _, err = w.app.Runs.Decide(tc.decider, w.ws.ID, r.ID, id, false)
				require.NoError(t, err, "a denial lets nothing run: anyone may deny")
				assert.Equal(t, auxilia.ApprovalDenied, decided.Status)
			})
		}
	})
}

// The caller's own word on its call (the header, an MCP client's answer)
// counts only where the rule lets the caller grant: otherwise the call
// waits in the console as if it came without, and the refused word is
// audited.
func TestTheCallersWordCountsOnlyWhereTheRuleSays(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		runtime, twin, admin := tokens(w.ws)
		for i, tc := range []struct {
			name   string
			rule   auxilia.ApprovalRule
			caller context.Context
			counts bool
		}{
			{"by default", auxilia.DefaultApprovalRule, runtime, true},
			{"in the console only", inConsole, runtime, false},
			{"in the console only, from an admin", auxilia.ApprovalRule{GrantedBy: auxilia.GrantedByAdmin}, admin, false},
			{"from someone else", someoneElse, runtime, false},
			{"from an admin, by a member", adminOnly, runtime, false},
			{"from an admin, by an admin", adminOnly, admin, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				w.bindWith(t, tc.rule)
				r := w.start(t, fmt.Sprintf("t%d", i))
				err := w.write(tc.caller, r, "a.txt", true)
				if tc.counts {
					require.NoError(t, err, "the caller's word grants the call")
					return
				}
				id := approvalID(t, err)
				assert.Equal(t, false, err.(*auxilia.Error).Extra["grant_with_call"])
				assert.Equal(t, string(tc.rule.GrantedBy), err.(*auxilia.Error).Extra["granted_by"])
				assert.Contains(t, err.Error(), "An approval given with the call does not count")

				page, err := db.In(w.ws.ID).Audit().List(context.Background(), auxilia.AuditFilter{ResourceType: "run", ResourceID: r.ID}, auxilia.PageRequest{Size: 10})
				require.NoError(t, err)
				require.NotEmpty(t, page.Items)
				refused := page.Items[0]
				assert.Equal(t, "tool.approve", refused.Action)
				assert.Equal(t, auxilia.OutcomeDenied, refused.Outcome)
				actor, _ := auxilia.ActorFrom(tc.caller)
				assert.Equal(t, actor.TokenID, refused.TokenID)
				assert.Contains(t, refused.Detail, "the approval given with the call of write_file a.txt")

				decider := admin
				if tc.caller == admin {
					decider = twin
					if tc.rule.GrantedBy == auxilia.GrantedByAdmin {
						decider = admin
					}
				}
				_, _, err = w.app.Runs.Decide(decider, w.ws.ID, r.ID, id, true)
				require.NoError(t, err)
				require.NoError(t, w.write(tc.caller, r, "a.txt", true), "the decision made in the console is used")
			})
		}
	})
}

// A terminal and a file replaced are approved as they are made, never kept
// pending: where the caller's word does not count they are refused, and
// nothing waits in the console.
func TestActsApprovedAsMadeFollowTheRule(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		runtime, _, admin := tokens(w.ws)
		for i, tc := range []struct {
			name   string
			rule   auxilia.ApprovalRule
			caller context.Context
			counts bool
		}{
			{"by default", auxilia.DefaultApprovalRule, runtime, true},
			{"in the console only", inConsole, admin, false},
			{"from someone else", someoneElse, admin, false},
			{"from an admin, by a member", adminOnly, runtime, false},
			{"from an admin, by an admin", adminOnly, admin, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				w.bindWith(t, auxilia.DefaultApprovalRule)
				r := w.start(t, fmt.Sprintf("t%d", i))
				require.NoError(t, w.write(admin, r, "a.txt", true), "the file to replace")
				w.bindWith(t, tc.rule)

				terminal := w.app.Runs.CheckTerminal(tc.caller, w.ws.ID, r.ID, true)
				_, replace := w.app.Runs.Overwrite(tc.caller, w.ws.ID, r.ID, run.WriteInput{Path: "a.txt", Content: []byte("new")}, true)
				for what, err := range map[string]error{"terminal": terminal, "replace": replace} {
					if tc.counts {
						assert.NoError(t, err, what)
						continue
					}
					require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired), "%s: %v", what, err)
					extra := err.(*auxilia.Error).Extra
					assert.Equal(t, false, extra["grant_with_call"], what)
					assert.Nil(t, extra["approval_id"], "%s: nothing waits in the console", what)
					assert.Contains(t, err.Error(), "is approved as it is made, never in the console", what)
				}
				list, _, err := w.app.Runs.ListApprovals(admin, w.ws.ID, r.ID)
				require.NoError(t, err)
				for _, a := range list {
					assert.NotEqual(t, auxilia.ApprovalPending, a.Status, "nothing pending: %v", a.Arguments)
				}

				err = w.app.Runs.CheckTerminal(tc.caller, w.ws.ID, r.ID, false)
				require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired), "without an approval: %v", err)
				assert.Equal(t, tc.counts, err.(*auxilia.Error).Extra["grant_with_call"])
			})
		}
	})
}

// A client that asks its own person (MCP elicitation) is not asked where
// that person's answer would not count: the call waits in the console.
func TestAnAskingClientsCallWaitsInTheConsoleWhereItsAnswerWouldNotCount(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		runtime, _, _ := tokens(w.ws)
		asking := run.WithOrigin(runtime, run.Origin{Via: "mcp", AsksPerson: true})
		for i, rule := range []auxilia.ApprovalRule{auxilia.DefaultApprovalRule, someoneElse, adminOnly, inConsole} {
			w.bindWith(t, rule)
			r := w.start(t, fmt.Sprintf("t%d", i))
			err := w.write(asking, r, "a.txt", false)
			require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired), "%v", err)
			extra := err.(*auxilia.Error).Extra
			if rule == auxilia.DefaultApprovalRule {
				assert.Equal(t, true, extra["grant_with_call"])
				assert.Nil(t, extra["approval_id"], "the client asks its person")
				continue
			}
			assert.Equal(t, false, extra["grant_with_call"], "%+v", rule)
			assert.NotEmpty(t, extra["approval_id"], "%+v: the call waits in the console", rule)
		}
	})
}
