package daytona_test

import (
	"context"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pool's sandbox, made without a thread, takes its thread's labels when
// claimed, and is still found by the creation label it was made with.
func TestRelabelGivesThePoolsSandboxItsThread(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	client := openClient(t, fake, daytonatest.DefaultKey)
	pool := provider.Labels{Workspace: "ws", Sandbox: "sb", Instance: "inst-1"}
	inst, err := client.Create(context.Background(), pool)
	require.NoError(t, err)
	assert.NotContains(t, fake.Labels(inst.ID), "auxilia.io/thread")

	claimed := pool
	claimed.Thread = "th-9"
	require.NoError(t, client.Relabel(context.Background(), inst, claimed))
	labels := fake.Labels(inst.ID)
	assert.Equal(t, "th-9", labels["auxilia.io/thread"])
	assert.Equal(t, "inst-1", labels["auxilia.io/creation"])
	found, ok, err := client.FindCreated(context.Background(), claimed)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)

	require.NoError(t, client.Destroy(context.Background(), inst))
	assert.ErrorIs(t, client.Relabel(context.Background(), inst, claimed), provider.ErrGone)
}
