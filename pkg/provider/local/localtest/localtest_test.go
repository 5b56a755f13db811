package localtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Remove()
	os.Exit(code)
}

// A seeded data folder's instances start from the process's template, not
// one of their own, and have an environment they can install into.
func TestSeededFolderCopiesTheProcessTemplate(t *testing.T) {
	ctx := context.Background()
	src, err := template()
	require.NoError(t, err)
	made, err := os.Stat(filepath.Join(src, ".venv", "pyvenv.cfg"))
	require.NoError(t, err)

	dataDir := t.TempDir()
	Seed(t, dataDir)
	cfg := filepath.Join(local.TemplateFolder(dataDir), ".venv", "pyvenv.cfg")
	seeded, err := os.Stat(cfg)
	require.NoError(t, err)
	assert.True(t, os.SameFile(made, seeded), "the seeded template links the process's")

	c, err := local.Kind{DataDir: dataDir}.Open(provider.Settings{Config: local.DefaultConfig()})
	require.NoError(t, err)
	started := time.Now()
	inst, err := c.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	t.Logf("the first instance took %s", time.Since(started))
	kept, err := os.Stat(cfg)
	require.NoError(t, err)
	assert.True(t, os.SameFile(made, kept), "the data folder made no template of its own")

	res, err := c.Execute(ctx, inst, provider.ExecRequest{Timeout: time.Minute,
		Command: "python3 -c 'import sys; print(sys.prefix)' && touch /workspace/.venv/lib/written && pip --version >/dev/null && echo ok"})
	require.NoError(t, err)
	assert.Equal(t, "/workspace/.venv\nok\n", res.Output, "the instance's environment is its own, and writable")
}
