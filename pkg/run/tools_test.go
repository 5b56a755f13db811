package run_test

import (
	"context"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTools(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		r := w.start(t, "t1")
		ws, id := w.ws.ID, r.ID

		res, err := w.app.Runs.Execute(ctx, ws, id, run.ExecInput{Command: "echo $((6*7)); echo oops >&2; exit 3"})
		require.NoError(t, err)
		assert.Equal(t, 3, res.ExitCode)
		assert.Contains(t, res.Output, "42\n")
		assert.Contains(t, res.Output, "oops\n")

		res, err = w.app.Runs.Execute(ctx, ws, id, run.ExecInput{Command: "sleep 30", Timeout: 1})
		require.NoError(t, err)
		assert.Equal(t, 124, res.ExitCode)
		assert.Contains(t, res.Output, "Command timed out after 1 seconds")

		// A timeout past the sandbox's is capped, however large (it once overflowed into none).
		res, err = w.app.Runs.Execute(ctx, ws, id, run.ExecInput{Command: "echo capped", Timeout: 9223372037})
		require.NoError(t, err)
		assert.Equal(t, 0, res.ExitCode, "%s", res.Output)
		assert.Equal(t, "capped\n", res.Output)

		p, err := w.app.Runs.Write(ctx, ws, id, run.WriteInput{Path: "src/app.py", Content: []byte("print('hello')\nprint('hello')\n")}, false)
		require.NoError(t, err)
		workdir := path.Dir(path.Dir(p))
		assert.Equal(t, path.Join(workdir, "src", "app.py"), p, "relative paths resolve against the working directory")
		_, err = w.app.Runs.Write(ctx, ws, id, run.WriteInput{Path: "src/app.py", Content: []byte("x")}, false)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeFileExists), "write does not overwrite: %v", err)

		// A path of the wrong kind is the caller's mistake, not the sandbox's.
		for _, bad := range []struct {
			call func() error
			want string
		}{
			{func() error {
				_, err := w.app.Runs.Read(ctx, ws, id, run.ReadInput{Path: "src", Offset: 0, Limit: 10}, false)
				return err
			}, "is a directory: list it with ls"},
			{func() error {
				_, err := w.app.Runs.List(ctx, ws, id, run.ListInput{Path: "src/app.py"}, false)
				return err
			}, "is a file, not a directory"},
			{func() error {
				_, err := w.app.Runs.Write(ctx, ws, id, run.WriteInput{Path: "src/app.py/inner.txt", Content: []byte("x")}, false)
				return err
			},
				"src/app.py is a file, so nothing can be inside it"},
		} {
			var problem *auxilia.Error
			require.ErrorAs(t, bad.call(), &problem)
			require.Equal(t, auxilia.CodeInvalid, problem.Code, problem.Message)
			require.Len(t, problem.Fields, 1)
			assert.Equal(t, "path", problem.Fields[0].Field)
			assert.Contains(t, problem.Fields[0].Message, bad.want)
		}

		// A provider failing otherwise is its own trouble: one look at the path, not a walk up it.
		broken := provider.Errorf(provider.ErrFailed, "fake", "stat", "502 Bad Gateway")
		w.fake.Fail("read", broken)
		w.fake.Fail("stat", broken)
		w.fake.ResetCalls()
		_, err = w.app.Runs.Read(ctx, ws, id, run.ReadInput{Path: "a/b/c/d/e.txt", Offset: 0, Limit: 10}, false)
		assert.False(t, auxilia.IsCode(err, auxilia.CodeInvalid), "%v", err)
		assert.Equal(t, 1, w.fake.Calls("stat"))
		w.fake.Fail("read", nil)
		w.fake.Fail("stat", nil)

		text, err := w.app.Runs.Read(ctx, ws, id, run.ReadInput{Path: "src/app.py", Offset: 1, Limit: 10}, false)
		require.NoError(t, err)
		assert.Equal(t, run.Text{Path: p, Content: "print('hello')\n", Offset: 1, Lines: 1, TotalLines: 2}, text)
		_, err = w.app.Runs.Read(ctx, ws, id, run.ReadInput{Path: "missing.txt", Offset: 0, Limit: 10}, false)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeNotFound))

		_, err = w.app.Runs.Edit(ctx, ws, id, run.EditInput{Path: "src/app.py", OldString: "hello", NewString: "bye"}, false)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeInvalid), "an ambiguous edit is refused")
		_, err = w.app.Runs.Edit(ctx, ws, id, run.EditInput{Path: "src/app.py", OldString: "absent", NewString: "x"}, false)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeInvalid), "an edit of text not found is refused")
		n, err := w.app.Runs.Edit(ctx, ws, id, run.EditInput{Path: "src/app.py", OldString: "hello", NewString: "bye", ReplaceAll: true}, false)
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		text, err = w.app.Runs.Read(ctx, ws, id, run.ReadInput{Path: "src/app.py", Offset: 0, Limit: 10}, false)
		require.NoError(t, err)
		assert.Equal(t, "print('bye')\nprint('bye')\n", text.Content)

		_, err = w.app.Runs.Write(ctx, ws, id, run.WriteInput{Path: "src/lib/util.py", Content: []byte("x = 'needle: here'\n")}, false)
		require.NoError(t, err)
		_, err = w.app.Runs.Write(ctx, ws, id, run.WriteInput{Path: "notes.md", Content: []byte("no needle\n")}, false)
		require.NoError(t, err)
		installed := path.Join(workdir, ".venv", "lib", "site.py")
		_, err = w.app.Runs.Write(ctx, ws, id, run.WriteInput{Path: installed, Content: []byte("x = 'needle: here'\n")}, false)
		require.NoError(t, err)
		paths, err := w.app.Runs.Glob(ctx, ws, id, run.GlobInput{Pattern: "**/*.py"}, false)
		require.NoError(t, err)
		assert.Equal(t, run.GlobResult{Paths: []string{p, path.Join(workdir, "src", "lib", "util.py")}}, paths)
		paths, err = w.app.Runs.Glob(ctx, ws, id, run.GlobInput{Pattern: "*.md"}, false)
		require.NoError(t, err)
		assert.Equal(t, run.GlobResult{Paths: []string{path.Join(workdir, "notes.md")}}, paths)

		matches, err := w.app.Runs.Grep(ctx, ws, id, run.GrepInput{Pattern: "needle: here"}, false)
		require.NoError(t, err)
		assert.Equal(t, run.GrepResult{Matches: []run.Match{{Path: path.Join(workdir, "src", "lib", "util.py"), Line: 1, Text: "x = 'needle: here'"}}}, matches,
			"the searches leave the Python environment out")
		for _, dir := range []string{".venv", ".venv/lib"} {
			matches, err = w.app.Runs.Grep(ctx, ws, id, run.GrepInput{Pattern: "needle: here", Path: dir}, false)
			require.NoError(t, err)
			assert.Equal(t, run.GrepResult{Matches: []run.Match{{Path: installed, Line: 1, Text: "x = 'needle: here'"}}}, matches, "unless asked to look there")
			paths, err = w.app.Runs.Glob(ctx, ws, id, run.GlobInput{Pattern: "**/*.py", Path: dir}, false)
			require.NoError(t, err)
			assert.Equal(t, run.GlobResult{Paths: []string{installed}}, paths)
		}
		matches, err = w.app.Runs.Grep(ctx, ws, id, run.GrepInput{Pattern: "'; rm -rf / #"}, false)
		require.NoError(t, err)
		assert.Empty(t, matches.Matches, "a pattern is data, never shell")

		listing, err := w.app.Runs.List(ctx, ws, id, run.ListInput{Path: "src"}, false)
		require.NoError(t, err)
		assert.False(t, listing.Truncated)
		var names []string
		for _, e := range listing.Entries {
			names = append(names, path.Base(e.Path))
		}
		assert.ElementsMatch(t, []string{"app.py", "lib"}, names)
	})
}

func TestToolPolicies(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		ctx := context.Background()
		_, err := w.app.Agents.Bind(ctx, w.ws.ID, w.agent.ID, w.sandbox.ID,
			map[string]string{"execute": "disabled", "write_file": "needs_approval"}, nil, nil)
		require.NoError(t, err)
		r := w.start(t, "t1")

		_, err = w.app.Runs.Execute(ctx, w.ws.ID, r.ID, run.ExecInput{Command: "id"})
		assert.True(t, auxilia.IsCode(err, auxilia.CodeToolDisabled))
		_, err = w.app.Runs.Write(ctx, w.ws.ID, r.ID, run.WriteInput{Path: "a.txt", Content: []byte("x")}, false)
		require.True(t, auxilia.IsCode(err, auxilia.CodeApprovalRequired))
		assert.Equal(t, "a.txt", err.(*auxilia.Error).Extra["arguments"].(map[string]any)["path"], "the call is described for the person approving it")
		_, err = w.app.Runs.Write(ctx, w.ws.ID, r.ID, run.WriteInput{Path: "a.txt", Content: []byte("x")}, true)
		require.NoError(t, err)
		page, err := db.In(w.ws.ID).Audit().List(ctx, auxilia.AuditFilter{ResourceType: "run", ResourceID: r.ID}, auxilia.PageRequest{Size: 10})
		require.NoError(t, err)
		require.NotEmpty(t, page.Items)
		assert.Equal(t, "tool.approve", page.Items[0].Action)
		assert.Contains(t, page.Items[0].Detail, "write_file a.txt")
	})
}

func TestRunEnds(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db, func(o *run.Options) { o.IdleTimeout = 200 * time.Millisecond })
		ctx := context.Background()
		r := w.start(t, "t1")
		done, err := w.app.Runs.Complete(ctx, w.ws.ID, r.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunCompleted, done.Status)
		assert.Equal(t, 1, w.fake.Calls("persist"), "a completed run saves its files")
		_, err = w.app.Runs.Execute(ctx, w.ws.ID, r.ID, run.ExecInput{Command: "true"})
		assert.True(t, auxilia.IsCode(err, auxilia.CodeRunNotActive))
		_, err = w.app.Runs.Complete(ctx, w.ws.ID, r.ID)
		assert.True(t, auxilia.IsCode(err, auxilia.CodeRunNotActive))

		idle := w.start(t, "t1")
		time.Sleep(300 * time.Millisecond)
		got, err := w.app.Runs.Get(ctx, w.ws.ID, idle.ID)
		require.NoError(t, err)
		assert.Equal(t, auxilia.RunExpired, got.Status, "a run without tool calls for the idle timeout has expired")
		_, err = w.app.Runs.Execute(ctx, w.ws.ID, idle.ID, run.ExecInput{Command: "true"})
		assert.True(t, auxilia.IsCode(err, auxilia.CodeRunNotActive))

		moved := w.start(t, "t2")
		other, err := w.app.Sandboxes.Create(ctx, w.ws.ID, sandboxInput("Other"))
		require.NoError(t, err)
		_, err = w.app.Agents.Bind(ctx, w.ws.ID, w.agent.ID, other.ID, nil, nil, nil)
		require.NoError(t, err)
		_, err = w.app.Runs.Execute(ctx, w.ws.ID, moved.ID, run.ExecInput{Command: "true"})
		assert.True(t, auxilia.IsCode(err, auxilia.CodeRunNotActive), "a run whose agent changed sandbox stops: %v", err)
	})
}

func TestKeepAliveDuringLongCalls(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db, func(o *run.Options) { o.KeepAliveEvery = 50 * time.Millisecond })
		r := w.start(t, "t1")
		res, err := w.app.Runs.Execute(context.Background(), w.ws.ID, r.ID, run.ExecInput{Command: "sleep 0.4; echo done"})
		require.NoError(t, err)
		assert.Equal(t, "done\n", res.Output)
		assert.GreaterOrEqual(t, w.fake.Calls("keepalive"), 3, "the provider hears the instance is in use while a command runs")
	})
}

func TestStreamingOutput(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, db *store.DB) {
		w := newWorld(t, db)
		r := w.start(t, "t1")
		var got strings.Builder
		_, err := w.app.Runs.Execute(context.Background(), w.ws.ID, r.ID, run.ExecInput{Command: "echo a; echo b >&2",
			OnOutput: func(stream, text string) { got.WriteString(stream + ":" + text) }})
		require.NoError(t, err)
		assert.Contains(t, got.String(), "stdout:a\n")
		assert.Contains(t, got.String(), "stderr:b\n")
	})
}
