package run_test

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/app"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/store/storetest"
)

// osWorld is a run on an OpenSandbox sandbox: the fake server, the run,
// and the working directory's host folder, where tests lay out files.
type osWorld struct {
	fake         *opensandboxtest.Server
	app          *app.App
	ws, runID    string
	dir, hostDir string
}

func newOSWorld(t testing.TB, opts opensandboxtest.Options) osWorld {
	t.Helper()
	ctx := context.Background()
	fake := opensandboxtest.New(t, opts)
	db := storetest.Open(t, store.SQLite)
	keys, err := secret.ParseKeys(secret.NewKey())
	require.NoError(t, err)
	a := app.New(db, keys, app.Options{DataDir: t.TempDir(), Kinds: []provider.Kind{opensandbox.Kind{}}})
	ws, err := db.System("test").Workspaces().Ensure(ctx, "acme")
	require.NoError(t, err)
	sb, err := a.Sandboxes.Create(ctx, ws.ID, sandbox.Input{Name: "OS", Provider: "opensandbox", URL: fake.URL})
	require.NoError(t, err)
	ag, err := a.Agents.Create(ctx, ws.ID, auxilia.AgentSpec{Name: "Analyst"})
	require.NoError(t, err)
	_, err = a.Agents.Bind(ctx, ws.ID, ag.ID, sb.ID, nil, nil, nil)
	require.NoError(t, err)
	r, err := a.Runs.Start(ctx, ws.ID, ag.ID, "t1")
	require.NoError(t, err)
	p, err := a.Runs.Write(ctx, ws.ID, r.ID, run.WriteInput{Path: "seed.txt"}, false)
	require.NoError(t, err)
	got, ok := fake.Sandbox(r.InstanceRef)
	require.True(t, ok)
	dir := path.Dir(p)
	return osWorld{fake: fake, app: a, ws: ws.ID, runID: r.ID, dir: dir, hostDir: filepath.Join(got.Root, filepath.FromSlash(dir))}
}

// lay writes each file (a name ending in / is a folder) under the working directory.
func (w osWorld) lay(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		p := filepath.Join(w.hostDir, filepath.FromSlash(n))
		if strings.HasSuffix(n, "/") {
			require.NoError(t, os.MkdirAll(p, 0o755))
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("a needle in "+n+"\n"), 0o644))
	}
}

// glob answers the paths found relative to the working directory.
func (w osWorld) glob(t testing.TB, in run.GlobInput) ([]string, bool) {
	t.Helper()
	found, err := w.app.Runs.Glob(context.Background(), w.ws, w.runID, in, false)
	require.NoError(t, err, "%+v", in)
	rel := make([]string, 0, len(found.Paths))
	for _, p := range found.Paths {
		rel = append(rel, strings.TrimPrefix(p, w.dir+"/"))
	}
	return rel, found.Truncated
}

var osTree = []string{
	"a.py", "b.ts", "c.go", "sp ace.py", "src/d.py", "src/e.ts", "src/f.tsx", "src/x.py/", "src/x.py/g.txt",
	"deep/er/still/h.ts", "empty.ts/", ".venv/lib/i.py", "deep/.venv/j.py", "docs/k.md", "[x].py",
}

// Glob on OpenSandbox answers the same with execd's one-call tree listing
// as with the walk an execd without it gets, for every kind of pattern.
func TestOpenSandboxGlobListsAsItWalks(t *testing.T) {
	native := newOSWorld(t, opensandboxtest.Options{})
	walked := newOSWorld(t, opensandboxtest.Options{NoDirectoryListing: true})
	for _, w := range []osWorld{native, walked} {
		w.lay(t, osTree...)
		require.NoError(t, os.Symlink("src", filepath.Join(w.hostDir, "link")))
	}
	patterns := []run.GlobInput{
		{Pattern: "**/*.{py,ts}"}, {Pattern: "*.py"}, {Pattern: "src/*"}, {Pattern: "**"}, {Pattern: "**/x.py/*"},
		{Pattern: "[a-c].*"}, {Pattern: "\\[x\\].py"}, {Pattern: "**/.venv/**"}, {Pattern: "*", Path: "deep"},
		{Pattern: "**/*.py", Path: ".venv"}, {Pattern: "link/**"}, {Pattern: "{src,docs}/?.*"}, {Pattern: "nothing*"},
	}
	// execd refuses to list a missing folder or a file, where find lists
	// nothing: those are walked, to answer as the walk does.
	refused := []run.GlobInput{{Pattern: "*", Path: "missing"}, {Pattern: "*", Path: "a.py"}}
	native.fake.ResetCalls()
	for i, in := range append(patterns, refused...) {
		if i == len(patterns) {
			assert.Positive(t, native.fake.Calls(opensandboxtest.OpListDir))
			assert.Zero(t, native.fake.Calls(opensandboxtest.OpCommand), "the native listing runs no command")
		}
		want, wantCut := walked.glob(t, in)
		got, gotCut := native.glob(t, in)
		assert.Equal(t, want, got, "%+v", in)
		assert.Equal(t, wantCut, gotCut, "%+v", in)
	}
	got, _ := native.glob(t, run.GlobInput{Pattern: "**/*.{py,ts}"})
	assert.Equal(t, []string{"[x].py", "a.py", "b.ts", "deep/er/still/h.ts", "empty.ts", "sp ace.py", "src/d.py", "src/e.ts", "src/x.py"}, got)
	assert.Positive(t, walked.fake.Calls(opensandboxtest.OpCommand), "an execd without the listing is walked")
}

// The native listing keeps glob's bounds: at most MaxGlobResults paths,
// and truncated says so.
func TestOpenSandboxGlobKeepsItsBounds(t *testing.T) {
	native := newOSWorld(t, opensandboxtest.Options{})
	names := make([]string, 0, run.MaxGlobResults+1)
	for i := range run.MaxGlobResults + 1 {
		names = append(names, fmt.Sprintf("many/f%05d.txt", i))
	}
	native.lay(t, names...)
	native.fake.ResetCalls()
	found, cut := native.glob(t, run.GlobInput{Pattern: "many/*.txt"})
	assert.Len(t, found, run.MaxGlobResults)
	assert.True(t, cut)
	found, cut = native.glob(t, run.GlobInput{Pattern: "many/f0000?.txt"})
	assert.Len(t, found, 10)
	assert.False(t, cut)
	assert.Zero(t, native.fake.Calls(opensandboxtest.OpCommand))
}

// Grep and edit make the same answers and changes on either execd: neither
// has a native call whose answer is ours (see Grep and Edit).
func TestOpenSandboxGrepAndEditAnswerAlikeOnEitherExecd(t *testing.T) {
	ctx := context.Background()
	var greps []run.GrepResult
	var bodies []string
	for _, opts := range []opensandboxtest.Options{{}, {NoDirectoryListing: true}} {
		w := newOSWorld(t, opts)
		w.lay(t, osTree...)
		found, err := w.app.Runs.Grep(ctx, w.ws, w.runID, run.GrepInput{Pattern: "needle", Path: "src"}, false)
		require.NoError(t, err)
		for i := range found.Matches {
			found.Matches[i].Path = strings.TrimPrefix(found.Matches[i].Path, w.dir+"/")
		}
		greps = append(greps, found)
		n, err := w.app.Runs.Edit(ctx, w.ws, w.runID, run.EditInput{Path: "a.py", OldString: "needle", NewString: "pin"}, false)
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		body, err := os.ReadFile(filepath.Join(w.hostDir, "a.py"))
		require.NoError(t, err)
		bodies = append(bodies, string(body))
	}
	assert.Len(t, greps[0].Matches, 4)
	assert.Equal(t, greps[0], greps[1])
	assert.Equal(t, "a pin in a.py\n", bodies[0])
	assert.Equal(t, bodies[0], bodies[1])
}
