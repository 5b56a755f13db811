package run_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func approvalID(t *testing.T, err error) string {
	t.Helper()
	require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired), "%v", err)
	id, _ := err.(*auxilia.Error).Extra["approval_id"].(string)
	require.NotEmpty(t, id, "the refusal names the pending approval")
	return id
}

// A call that needs approval and comes without one waits as a pending
// approval; a person's decision lets the same call through once, or
// refuses it once.
func TestPendingApprovals(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := auxilia.WithActor(context.Background(), auxilia.Actor{TokenID: "tok-1", TokenName: "agent runtime", Workspace: w.ws})
		_, err := w.app.Agents.Bind(ctx, w.ws.ID, w.agent.ID, w.sandbox.ID, map[string]string{"write_file": "needs_approval"}, nil, nil)
		require.NoError(t, err)
		r := w.start(t, "t1")
		write := func(p, content string) error {
			_, err := w.app.Runs.Write(ctx, w.ws.ID, r.ID, run.WriteInput{Path: p, Content: []byte(content)}, false)
			return err
		}

		first := approvalID(t, write("a.txt", "hello"))
		assert.Equal(t, first, approvalID(t, write("a.txt", "hello")), "a repeat before a decision is the same pending call")
		other := approvalID(t, write("a.txt", "other content"))
		assert.NotEqual(t, first, other, "other arguments are another call")

		list, _, err := w.app.Runs.ListApprovals(ctx, w.ws.ID, r.ID)
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, other, list[0].ID, "newest first")
		a := list[1]
		assert.Equal(t, auxilia.ApprovalPending, a.Status)
		assert.Equal(t, "write_file", a.Tool)
		assert.Equal(t, map[string]any{"path": "a.txt", "content": "hello"}, a.Arguments)
		assert.Equal(t, "agent runtime", a.RequestedBy)
		assert.Equal(t, "api", a.Via)

		person := auxilia.WithActor(context.Background(), auxilia.Actor{TokenID: "tok-2", TokenName: "Ada", Workspace: w.ws})
		decided, _, err := w.app.Runs.Decide(person, w.ws.ID, r.ID, first, true)
		require.NoError(t, err)
		assert.Equal(t, auxilia.ApprovalApproved, decided.Status)
		assert.Equal(t, "Ada", decided.DecidedBy)
		require.NotNil(t, decided.DecidedAt)
		_, _, err = w.app.Runs.Decide(person, w.ws.ID, r.ID, first, false)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeConflict), "deciding twice: %v", err)

		assert.NotEqual(t, first, approvalID(t, write("b.txt", "hello")), "an approval is for its own arguments")
		require.NoError(t, write("a.txt", "hello"), "the approved call goes ahead")
		again := approvalID(t, write("a.txt", "hello"))
		assert.NotEqual(t, first, again, "once: the next repeat asks again")

		_, _, err = w.app.Runs.Decide(person, w.ws.ID, r.ID, other, false)
		require.NoError(t, err)
		err = write("a.txt", "other content")
		require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalDenied), "%v", err)
		assert.Contains(t, err.Error(), "A person denied the call of write_file")

		page, err := db.In(w.ws.ID).Audit().List(ctx, auxilia.AuditFilter{ResourceType: "run", ResourceID: r.ID}, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		var details []string
		for _, e := range page.Items {
			if e.Action == "tool.approve" {
				details = append(details, string(e.Outcome)+" by "+e.TokenName+": "+e.Detail)
			}
		}
		assert.Equal(t, []string{
			"denied by Ada: a person denied write_file a.txt (approval " + other + ", asked over api)",
			"success by Ada: a person approved write_file a.txt (approval " + first + ", asked over api)",
		}, details)

		require.NoError(t, func() error {
			_, err := w.app.Runs.Write(person, w.ws.ID, r.ID, run.WriteInput{Path: "b.txt", Content: []byte("hello")}, true)
			return err
		}(), "approved as it is made")
		list, _, err = w.app.Runs.ListApprovals(ctx, w.ws.ID, r.ID)
		require.NoError(t, err)
		for _, a := range list {
			if a.Arguments["path"] == "b.txt" {
				assert.Equal(t, auxilia.ApprovalApproved, a.Status, "a call approved as it is made settles its pending approval")
				assert.Equal(t, "Ada", a.DecidedBy)
				assert.NotNil(t, a.UsedAt)
			}
		}

		_, _, err = w.app.Runs.Decide(person, w.ws.ID, r.ID, auxilia.NewID(), true)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound))
		other2 := w.start(t, "t2")
		_, _, err = w.app.Runs.Decide(person, w.ws.ID, other2.ID, again, true)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound), "another thread's run does not reach it")
	})
}

// Of calls racing for one approval, one goes ahead.
func TestAnApprovalIsUsedOnce(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		_, err := w.app.Agents.Bind(ctx, w.ws.ID, w.agent.ID, w.sandbox.ID, map[string]string{"glob": "needs_approval"}, nil, nil)
		require.NoError(t, err)
		r := w.start(t, "t1")
		in := run.GlobInput{Pattern: "*.txt"}
		_, err = w.app.Runs.Glob(ctx, w.ws.ID, r.ID, in, false)
		_, _, err = w.app.Runs.Decide(ctx, w.ws.ID, r.ID, approvalID(t, err), true)
		require.NoError(t, err)

		var wg sync.WaitGroup
		results := make([]error, 4)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = w.app.Runs.Glob(ctx, w.ws.ID, r.ID, in, false)
			}()
		}
		wg.Wait()
		went := 0
		for _, err := range results {
			if err == nil {
				went++
			} else {
				assert.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired), "%v", err)
			}
		}
		assert.Equal(t, 1, went)
	})
}

// Long arguments are kept cut, and a call from a client that asks its own
// person is not left pending.
func TestApprovalArgumentsAreBoundedAndAskingClientsLeaveNothingPending(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		_, err := w.app.Agents.Bind(ctx, w.ws.ID, w.agent.ID, w.sandbox.ID, map[string]string{"execute": "needs_approval"}, nil, nil)
		require.NoError(t, err)
		r := w.start(t, "t1")
		long := "echo " + strings.Repeat("é", 5000)
		_, err = w.app.Runs.Execute(run.WithOrigin(ctx, run.Origin{Via: "mcp"}), w.ws.ID, r.ID, run.ExecInput{Command: long})
		approvalID(t, err)
		_, err = w.app.Runs.Execute(run.WithOrigin(ctx, run.Origin{Via: "mcp", AsksPerson: true}), w.ws.ID, r.ID, run.ExecInput{Command: "id"})
		require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired))
		assert.Nil(t, err.(*auxilia.Error).Extra["approval_id"])

		list, _, err := w.app.Runs.ListApprovals(ctx, w.ws.ID, r.ID)
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "mcp", list[0].Via)
		assert.True(t, list[0].ArgumentsCut)
		cmd := list[0].Arguments["command"].(string)
		assert.LessOrEqual(t, len(cmd), 4096+len("…"))
		assert.True(t, strings.HasSuffix(cmd, "é…"), "cut between characters")
	})
}
