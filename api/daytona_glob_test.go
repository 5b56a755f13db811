package api_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// On Daytona, glob lists the tree with the daemon's /files/search in one
// call, no command run, and answers as the walk does: folders and hidden
// files matched, .venv below the root left out.
func TestGlobOnDaytonaListsTheTreeInOneCall(t *testing.T) {
	eachDB(t, func(t *testing.T, e *env) {
		fake, err := daytonatest.New(daytonatest.Options{})
		require.NoError(t, err)
		t.Cleanup(fake.Close)
		r := e.send("POST", "/api/v1/sandboxes", e.admin, map[string]any{"name": "Daytona", "provider": "daytona",
			"url": fake.URL(), "secret": daytonatest.DefaultKey})
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		agent := e.createAgent("Globber")
		r = e.send("PUT", "/api/v1/agents/"+agent["id"].(string)+"/sandbox", e.member,
			map[string]any{"sandbox_id": r.json(t)["id"], "tools": allAllowed})
		require.Equal(t, 200, r.StatusCode, "%s", r.body)
		r = e.send("POST", "/api/v1/agents/"+agent["id"].(string)+"/threads/t/runs", e.member, nil)
		require.Equal(t, 201, r.StatusCode, "%s", r.body)
		run := r.json(t)
		require.Len(t, fake.Sandboxes(), 1)
		home := fake.HomeDir(fake.Sandboxes()[0])
		for _, name := range []string{"src/a.py", "src/.hidden.py", "src/lib.py/x", ".venv/lib/site.py", "src/b.txt"} {
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(home, name), nil, 0o644))
		}
		sessions, searches := fake.Calls(daytonatest.OpCreateSession), fake.Calls(daytonatest.OpSearchFiles)

		got := e.call("GET", "/api/v1/runs/"+run["id"].(string)+"/glob?pattern=**/*.py", e.member, nil).json(t)
		assert.Equal(t, []any{"/home/daytona/src/.hidden.py", "/home/daytona/src/a.py", "/home/daytona/src/lib.py"}, got["paths"])
		assert.Equal(t, false, got["truncated"])
		assert.Equal(t, searches+1, fake.Calls(daytonatest.OpSearchFiles), "one listing")
		assert.Equal(t, sessions, fake.Calls(daytonatest.OpCreateSession), "no command")
	})
}
