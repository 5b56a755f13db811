package local

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var labelled = provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1", Instance: "0b9d6c1e-5a7f-4e47-9a57-3c1a3f2d9e10"}

func TestFindCreated(t *testing.T) {
	c := newClient(t)
	c.create(t) // another creation's instance
	ctx := context.Background()
	var foundWhenAnnounced bool
	announce := provider.WithCreated(ctx, func(id string) {
		found, ok, err := c.FindCreated(ctx, labelled)
		foundWhenAnnounced = err == nil && ok && found.ID == id
	})
	inst, err := c.Create(announce, labelled)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(ctx, inst) })
	assert.True(t, foundWhenAnnounced, "the labels are written before anyone hears the id")

	found, ok, err := c.FindCreated(ctx, labelled)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, provider.Instance{ID: inst.ID, WorkDir: "/workspace"}, found)

	other := labelled
	other.Instance = "1c2f6b9a-0000-4000-8000-000000000000"
	_, ok, err = c.FindCreated(ctx, other)
	require.NoError(t, err)
	assert.False(t, ok, "no instance was made under that creation")
	_, ok, err = c.FindCreated(ctx, provider.Labels{Workspace: "ws-1"})
	require.NoError(t, err)
	assert.False(t, ok, "a creation without an id finds nothing")

	require.NoError(t, c.Destroy(ctx, inst))
	_, ok, err = c.FindCreated(ctx, labelled)
	require.NoError(t, err)
	assert.False(t, ok, "a destroyed instance is not found")
}

// instanceMounts lists what is mounted below the client's instances folder.
func (c testClient) instanceMounts(t *testing.T) []string {
	t.Helper()
	mountinfo, err := os.ReadFile("/proc/self/mountinfo")
	require.NoError(t, err)
	var found []string
	for _, line := range strings.Split(string(mountinfo), "\n") {
		if fields := strings.Fields(line); len(fields) > 4 && strings.HasPrefix(fields[4], c.instances+"/") {
			found = append(found, fields[4])
		}
	}
	return found
}

// cgroups lists the cgroups of the client's instances.
func (c testClient) cgroupsLeft(t *testing.T) []string {
	t.Helper()
	if c.cgroups == nil {
		return nil
	}
	names, err := c.cgroups.Groups()
	require.NoError(t, err)
	return names
}

// instanceFiles lists what the instances folder holds.
func (c testClient) instanceFiles(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(c.instances)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestAnIdleInstanceHoldsNothingButItsFiles(t *testing.T) {
	c := newClient(t)
	require.NoError(t, bubblewrap.DisksSupported(), "the tests run as root, where instances have disks")
	require.NotNil(t, c.cgroups, "and cgroups")
	inst := c.create(t)
	require.NoError(t, c.WriteFile(context.Background(), inst, "kept.txt", []byte("kept")))
	assert.Equal(t, "kept", c.exec(t, inst, "cat kept.txt").Output)
	assert.Empty(t, c.instanceMounts(t), "no disk mounted between uses")
	assert.Empty(t, c.cgroupsLeft(t), "no cgroup between commands")
	assert.ElementsMatch(t, []string{inst.ID, inst.ID + ".json", inst.ID + ".ext4"}, c.instanceFiles(t),
		"an instance is its folder, its labels and its disk")
}

func TestDestroyLeavesNothing(t *testing.T) {
	c := newClient(t)
	inst := c.create(t)
	assert.Equal(t, "ran\n", c.exec(t, inst, "echo ran | tee made").Output)
	require.NoError(t, c.Destroy(context.Background(), inst))
	assert.Empty(t, c.instanceFiles(t))
	assert.Empty(t, c.instanceMounts(t))
	assert.Empty(t, c.cgroupsLeft(t))
}

func TestAFailedCreateLeavesNothing(t *testing.T) {
	c := newClient(t, func(cfg *Config) { cfg.Resources.DiskMB = -1 }) // no filesystem has a negative size
	_, err := c.Create(context.Background(), labelled)
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, err.Error(), "make the disk")
	assert.NotContains(t, err.Error(), c.dataDir, "errors do not tell the server's paths")
	assert.Empty(t, c.instanceFiles(t))
}

// A pool's instance, made without a thread, is labelled as its thread's
// when claimed, and found by the labels it has now.
func TestRelabel(t *testing.T) {
	c := newClient(t)
	ctx := context.Background()
	pool := labelled
	pool.Thread = ""
	inst, err := c.Create(ctx, pool)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(ctx, inst) })

	require.NoError(t, c.Relabel(ctx, inst, labelled))
	found, ok, err := c.FindCreated(ctx, labelled)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)
	_, ok, err = c.FindCreated(ctx, pool)
	require.NoError(t, err)
	assert.False(t, ok, "the pool's labels were replaced")

	require.NoError(t, c.Destroy(ctx, inst))
	assert.ErrorIs(t, c.Relabel(ctx, inst, labelled), provider.ErrGone)
}
