package opensandbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
)

// claim makes a pool's instance, labelled without a thread, and the labels
// a thread's claim gives it.
func claim(t *testing.T, client provider.Client) (provider.Instance, provider.Labels) {
	t.Helper()
	pool := provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Instance: "0b9d6c1e-5a7f-4e47-9a57-3c1a3f2d9e10"}
	inst, err := client.Create(context.Background(), pool)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	claimed := pool
	claimed.Thread = "th-9"
	return inst, claimed
}

// A pool's instance, made without a thread, takes its thread's labels when
// claimed, and is still found by the creation label it was made with.
func TestRelabelGivesThePoolsInstanceItsThread(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst, claimed := claim(t, client)
	sb, _ := fake.Sandbox(inst.ID)
	assert.NotContains(t, sb.Metadata, "auxilia-thread")

	require.NoError(t, client.(provider.Relabeler).Relabel(context.Background(), inst, claimed))
	sb, _ = fake.Sandbox(inst.ID)
	assert.Equal(t, map[string]string{"managed-by": "auxilia", "auxilia-workspace": "ws-1", "auxilia-sandbox": "sb-1",
		"auxilia-thread": "th-9", "auxilia-instance": claimed.Instance}, sb.Metadata)
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpPatchMetadata))

	found, ok, err := client.(provider.Finder).FindCreated(context.Background(), claimed)
	require.NoError(t, err)
	require.True(t, ok, "found by its thread's labels, as after a restart")
	assert.Equal(t, inst.ID, found.ID)

	// A thread's labels without a workspace take the pool's workspace off:
	// the labels are replaced, not added to.
	bare := claimed
	bare.Workspace = ""
	require.NoError(t, client.(provider.Relabeler).Relabel(context.Background(), inst, bare))
	sb, _ = fake.Sandbox(inst.ID)
	assert.NotContains(t, sb.Metadata, "auxilia-workspace")

	require.NoError(t, client.Destroy(context.Background(), inst))
	assert.ErrorIs(t, client.(provider.Relabeler).Relabel(context.Background(), inst, claimed), provider.ErrGone)
}

// A server from before PATCH /sandboxes/{id}/metadata answers 404: the
// claimed instance keeps the pool's labels, and is found as before.
func TestRelabelOnAnOlderServerKeepsThePoolsLabels(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{NoMetadataPatch: true})
	inst, claimed := claim(t, client)
	before, _ := fake.Sandbox(inst.ID)

	err := client.(provider.Relabeler).Relabel(context.Background(), inst, claimed)
	assert.ErrorIs(t, err, provider.ErrUnsupported)
	assert.ErrorContains(t, err, "predates PATCH /sandboxes/{id}/metadata")
	after, _ := fake.Sandbox(inst.ID)
	assert.Equal(t, before.Metadata, after.Metadata)
	assert.NotContains(t, after.Metadata, "auxilia-thread")

	found, ok, err := client.(provider.Finder).FindCreated(context.Background(), claimed)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)
}
