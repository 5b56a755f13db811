package local

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stoppingServerEnv names the data folder of TestServerStoppingMidCommand.
const stoppingServerEnv = "LOCAL_TEST_STOPPING_SERVER"

// TestServerStoppingMidCommand is a server for
// TestTheFirstClientSweepsWhatAStoppedServerLeft, run in a process of its
// own: it makes an instance, starts a command in it, says which instance,
// and waits to be killed.
func TestServerStoppingMidCommand(t *testing.T) {
	dataDir := os.Getenv(stoppingServerEnv)
	if dataDir == "" {
		t.Skip("a helper of TestTheFirstClientSweepsWhatAStoppedServerLeft")
	}
	opened, err := Kind{DataDir: dataDir}.Open(provider.Settings{Config: DefaultConfig()})
	require.NoError(t, err)
	c := opened.(*client)
	inst, err := c.Create(context.Background(), labelled)
	require.NoError(t, err)
	require.NoError(t, c.WriteFile(context.Background(), inst, "kept.txt", []byte("kept")))
	go func() {
		_, _ = c.Execute(context.Background(), inst, provider.ExecRequest{Command: "touch started; sleep " + marker, Timeout: time.Hour})
	}()
	require.Eventually(t, func() bool {
		_, err := c.Stat(context.Background(), inst, "started")
		return err == nil
	}, 30*time.Second, 10*time.Millisecond)
	fmt.Println("instance", inst.ID)
	select {}
}

func TestTheFirstClientSweepsWhatAStoppedServerLeft(t *testing.T) {
	dataDir := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	server := exec.Command(self, "-test.run=^TestServerStoppingMidCommand$", "-test.count=1")
	server.Env = append(os.Environ(), stoppingServerEnv+"="+dataDir)
	out, err := server.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, server.Start())
	t.Cleanup(func() { _ = server.Process.Kill(); _ = server.Wait() })
	var id string
	for lines := bufio.NewScanner(out); id == "" && lines.Scan(); {
		id, _ = strings.CutPrefix(lines.Text(), "instance ")
	}
	require.NotEmpty(t, id, "the server made an instance")

	// The server stops mid-command, as a crash stops it, and mid-create:
	// its jails die with it; its mount, its cgroup and a labels draft stay.
	require.NoError(t, server.Process.Kill())
	_ = server.Wait()
	instances := filepath.Join(dataDir, "instances")
	require.NoError(t, os.WriteFile(filepath.Join(instances, labelsDraft+"123"), []byte("{"), 0o600))
	pythons := filepath.Join(dataDir, pythonFolder)
	require.NoError(t, os.MkdirAll(filepath.Join(pythons, templateDraft+"123", ".venv", "bin"), 0o700))
	require.Eventually(t, func() bool { return len(leftovers()) == 0 }, 10*time.Second, 10*time.Millisecond)
	cgroups, err := bubblewrap.OpenCgroups(cgroupScope(instances))
	require.NoError(t, err)
	stale := testClient{client: &client{instances: instances, cgroups: cgroups}}
	require.NotEmpty(t, stale.instanceMounts(t), "the stopped server left its disk mounted")
	require.Equal(t, []string{id}, stale.cgroupsLeft(t), "and its instance's cgroup")

	// The next server's first client sweeps them.
	opened, err := Kind{DataDir: dataDir}.Open(provider.Settings{Config: DefaultConfig()})
	require.NoError(t, err)
	c := testClient{client: opened.(*client), dataDir: dataDir}
	assert.Empty(t, c.instanceMounts(t), "the stale mount is gone")
	assert.Empty(t, c.cgroupsLeft(t), "so is the stale cgroup")
	assert.ElementsMatch(t, []string{id, id + ".json", id + ".ext4"}, c.instanceFiles(t), "and the labels draft; the instance stays")
	made, err := os.ReadDir(pythons)
	require.NoError(t, err)
	require.Len(t, made, 1, "and the Python template's draft")
	assert.Equal(t, templateFolder, made[0].Name(), "the finished template stays")

	inst := provider.Instance{ID: id, WorkDir: workDir}
	_, err = c.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, "kept started\n", c.exec(t, inst, `echo "$(cat kept.txt)" started*`).Output, "with its files")
	require.NoError(t, c.Destroy(context.Background(), inst))
}
