package local

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateMakesAFolderPerInstance(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		a, b := c.create(t), c.create(t)
		assert.Regexp(t, regexp.MustCompile(`^loc-[0-9a-f]{16}$`), a.ID)
		assert.NotEqual(t, a.ID, b.ID)
		assert.Equal(t, "/workspace", a.WorkDir)

		info, err := os.Stat(filepath.Join(c.dataDir, "instances", a.ID))
		require.NoError(t, err)
		assert.True(t, info.IsDir())
		user := c.user(t, a)
		res := c.exec(t, a, "stat -c %u:%g . .venv; ls -A")
		assert.Equal(t, fmt.Sprintf("%d:%d\n%[1]d:%d\n.venv\n", user.UID, user.GID), res.Output,
			"a folder with only its Python environment, both of which belong to the user commands run as")
	})
}

func TestReconnect(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)
		again, err := c.Reconnect(context.Background(), inst)
		require.NoError(t, err)
		assert.Equal(t, inst, again)

		for _, id := range []string{"loc-0123456789abcdef", "../../etc", "", "loc-../../x"} {
			_, err := c.Reconnect(context.Background(), provider.Instance{ID: id, WorkDir: "/workspace"})
			var perr *provider.Error
			require.ErrorAs(t, err, &perr, "id %q", id)
			assert.ErrorIs(t, err, provider.ErrGone, "id %q", id)
		}
	})
}

func TestDestroyEndsRunningCommands(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)
		done := make(chan error, 1)
		go func() {
			_, err := c.Execute(context.Background(), inst, provider.ExecRequest{Command: "sleep " + marker, Timeout: time.Minute})
			done <- err
		}()
		require.Eventually(t, func() bool { return len(leftovers()) > 0 }, 10*time.Second, 10*time.Millisecond)

		require.NoError(t, c.Destroy(context.Background(), inst))
		select {
		case err := <-done:
			assert.ErrorIs(t, err, provider.ErrGone, "the command ended with its instance")
		case <-time.After(10 * time.Second):
			t.Fatal("the command still runs")
		}
		assert.Empty(t, leftovers())
		_, err := os.Stat(filepath.Join(c.instances, inst.ID))
		assert.ErrorIs(t, err, os.ErrNotExist)
		require.NoError(t, c.Destroy(context.Background(), inst), "destroying twice is fine")
		_, err = c.Reconnect(context.Background(), inst)
		assert.ErrorIs(t, err, provider.ErrGone)
	})
}

func TestDestroyRemovesWhatCommandsLocked(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	res := c.exec(t, inst, "mkdir -p locked/inner && touch locked/inner/file && chmod 0 locked/inner && chmod 500 locked")
	require.Equal(t, 0, res.ExitCode, res.Output)
	require.NoError(t, c.Destroy(context.Background(), inst))
	_, err := os.Stat(filepath.Join(c.instances, inst.ID))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestProbe(t *testing.T) {
	require.NoError(t, newClient(t).Probe(context.Background()))
}

func TestNothingRunsWithoutBubblewrap(t *testing.T) {
	made := newClient(t)
	inst := made.create(t)
	opened, err := Kind{DataDir: made.dataDir, Bwrap: filepath.Join(t.TempDir(), "bwrap")}.Open(provider.Settings{Config: DefaultConfig()})
	require.NoError(t, err)
	c := opened.(*client)

	err = c.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "bubblewrap is not installed", "the probe says why")

	_, err = c.Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrFailed, "an instance nothing could run in is not made")
	assert.Contains(t, err.Error(), "bubblewrap is not installed")
	assert.NotContains(t, err.Error(), "python3-venv", "Python is not what is missing")

	_, err = c.Execute(context.Background(), inst, provider.ExecRequest{Command: "touch ran", Timeout: time.Minute})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "bubblewrap is not installed")
	_, err = c.Stat(context.Background(), inst, "ran")
	assert.ErrorIs(t, err, provider.ErrNotFound, "the command did not run unsandboxed")
}

// otherConfig is some other provider's config.
type otherConfig struct{ provider.Config }

func TestOpenTakesOnlyLocalConfigs(t *testing.T) {
	_, err := Kind{DataDir: t.TempDir()}.Open(provider.Settings{Config: otherConfig{}})
	assert.ErrorContains(t, err, "not a *local.Config")
	_, err = Kind{}.Open(provider.Settings{Config: DefaultConfig()})
	assert.ErrorContains(t, err, "no data folder")
}

func TestStreamedOutputKeepsCharactersWhole(t *testing.T) {
	eachIsolation(t, func(t *testing.T, isolation string) {
		c := newIsolatedClient(t, isolation)
		inst := c.create(t)
		var chunks []string
		res, err := c.Execute(context.Background(), inst, provider.ExecRequest{
			Command: `printf 'caf\303'; sleep 0.3; printf '\251\n'`, Timeout: time.Minute,
			OnOutput: func(stream, text string) { chunks = append(chunks, text) },
		})
		require.NoError(t, err)
		assert.Equal(t, "café\n", res.Output)
		assert.Equal(t, "café\n", strings.Join(chunks, ""))
		for _, chunk := range chunks {
			assert.True(t, utf8.ValidString(chunk), "chunk %q is whole characters", chunk)
		}
	})
}
