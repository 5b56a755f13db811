package daytona_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// createSized creates an instance with the given CPU and memory on fake.
func createSized(t *testing.T, fake *daytonatest.Server, cpu float64, memoryMB int) (provider.Instance, error) {
	t.Helper()
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) {
		c.Resources = provider.InstanceResources{CPU: cpu, MemoryMB: memoryMB}
	})
	return client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
}

func TestResourcesResizeANewSandboxBeforeItsFirstCommand(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{Transition: 2})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) {
		c.Resources = provider.InstanceResources{CPU: 2, MemoryMB: 4096}
	})
	inst, err := client.Create(context.Background(), provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpResizeSandbox))
	got, ok := fake.Settings(inst.ID)
	require.True(t, ok)
	assert.Equal(t, daytonatest.Resources{CPU: 2, Memory: 4, Disk: 3}, got.Resources, "CPU and memory grown; disk the snapshot's")
	state, _ := fake.State(inst.ID)
	assert.Equal(t, "started", state, "the create waited out resizing")
	res, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "echo ready", Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "ready\n", res.Output)
}

func TestOnlyWhatDiffersFromTheSnapshotIsResized(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	inst, err := createSized(t, fake, 0, 0)
	require.NoError(t, err)
	_, err = createSized(t, fake, 1, 1024)
	require.NoError(t, err, "the snapshot's own size: Daytona would refuse a resize that changes nothing")
	assert.Zero(t, fake.Calls(daytonatest.OpResizeSandbox))

	inst, err = createSized(t, fake, 1, 2048)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(daytonatest.OpResizeSandbox))
	got, _ := fake.Settings(inst.ID)
	assert.Equal(t, daytonatest.Resources{CPU: 1, Memory: 2, Disk: 3}, got.Resources)
}

func TestWhatDaytonasResizeRefusesFailsTheCreateWithItsWords(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	_, err := createSized(t, fake, 8, 0)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "resources: Daytona refuses to resize the sandbox to them")
	assert.Contains(t, err.Error(), "CPU request 8 exceeds maximum allowed per sandbox (4).")

	_, err = createSized(t, fake, 0, 16384)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Memory request 16GB exceeds maximum allowed per sandbox (8GB).")
	assert.Equal(t, 2, fake.Calls(daytonatest.OpDeleteSandbox), "a sandbox that could not be sized is deleted")

	raised := daytonatest.Start(t, daytonatest.Options{MaxCPUPerSandbox: 16})
	inst, err := createSized(t, raised, 8, 0)
	require.NoError(t, err, "an organisation's raised limit is Daytona's to apply")
	got, _ := raised.Settings(inst.ID)
	assert.Equal(t, 8, got.Resources.CPU)
}

func TestLessThanTheSnapshotGivesIsRefusedWithDaytonasWords(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{SnapshotResources: daytonatest.Resources{CPU: 2, Memory: 4, Disk: 10}})
	_, err := createSized(t, fake, 1, 0)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Sandbox must be in stopped state to decrease the number of CPU cores")
	_, err = createSized(t, fake, 0, 2048)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "Sandbox must be in stopped state to decrease memory")

	inst, err := createSized(t, fake, 2, 8192)
	require.NoError(t, err, "the snapshot's CPU is not asked for again; memory grows")
	got, _ := fake.Settings(inst.ID)
	assert.Equal(t, daytonatest.Resources{CPU: 2, Memory: 8, Disk: 10}, got.Resources)
}

func TestAResizeOverTheQuotaIsAQuotaRefusal(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.SetQuota(daytonatest.Quota{CPU: 2})
	_, err := createSized(t, fake, 3, 0)
	require.Error(t, err)
	assert.NotErrorIs(t, err, provider.ErrInvalidConfig, "the settings are right; the organisation is full")
	assert.Contains(t, err.Error(), "Total CPU limit exceeded. Maximum allowed: 2.")
}

func TestADaytonaWithoutResizeRefusesResourcesAtRun(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{NoResize: true})
	_, err := createSized(t, fake, 2, 0)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "resources: this Daytona cannot resize a sandbox (its API has no resize, or its sandbox_resize feature is off), so it cannot set CPU or memory; set them to 0 for the snapshot's")
	assert.Contains(t, err.Error(), "HTTP 404")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpDeleteSandbox), "the sandbox made for nothing is deleted")

	_, err = createSized(t, fake, 0, 0)
	require.NoError(t, err, "without resources no resize is asked for")
}
