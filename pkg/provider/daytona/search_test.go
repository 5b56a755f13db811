package daytona_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
)

// The daemon's listing answers the paths find lists under a folder, root
// left out: folders, hidden files, a symlink not followed, at most the
// limit, and a daemon without the route says it cannot.
func TestListTreeAnswersWhatFindLists(t *testing.T) {
	ctx := context.Background()
	fake, client, inst := started(t, daytonatest.Options{})
	home := fake.HomeDir(inst.ID)
	for _, name := range []string{"t/a.go", "t/.hidden/b.txt", "t/d/e/f.md", "t/.venv/lib/x.py", "t/space name"} {
		p := filepath.Join(home, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, nil, 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(home, "outside"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "outside/o.txt"), nil, 0o644))
	require.NoError(t, os.Symlink("../outside", filepath.Join(home, "t/link")))

	root := daytonatest.WorkDir + "/t"
	listed, truncated, err := client.ListTree(ctx, inst, root, 100)
	require.NoError(t, err)
	assert.False(t, truncated)
	found := strings.Split(strings.TrimSpace(run(t, client, inst, "find "+root+" -mindepth 1").Output), "\n")
	slices.Sort(listed)
	slices.Sort(found)
	assert.Equal(t, found, listed)
	assert.Contains(t, listed, root+"/link")
	assert.NotContains(t, listed, root+"/link/o.txt", "a symlink is not followed")

	few, truncated, err := client.ListTree(ctx, inst, root, 3)
	require.NoError(t, err)
	assert.True(t, truncated)
	assert.Len(t, few, 3)

	none, truncated, err := client.ListTree(ctx, inst, root+"/missing", 100)
	require.NoError(t, err, "a folder that is not there has nothing under it, as for find")
	assert.Empty(t, none)
	assert.False(t, truncated)

	fake.Inject(daytonatest.OpSearchFiles, daytonatest.Fault{Status: 404, Body: "404 page not found"})
	_, _, err = client.ListTree(ctx, inst, root, 100)
	require.ErrorIs(t, err, provider.ErrUnsupported, "gin's bare 404: a daemon without the route")
}
