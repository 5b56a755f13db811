package e2b_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
)

// A create whose answer was lost is found by our instance id in its
// metadata, running or paused; another id finds nothing; a listing that
// fails is an error, not "not found".
func TestFindCreatedByInstanceLabel(t *testing.T) {
	ctx := context.Background()
	fake := e2btest.Start(t, e2btest.Options{})
	client := openClient(t, fake, e2btest.DefaultKey)
	labels := provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th", Instance: "inst-1 &=?"}
	inst, err := client.Create(ctx, labels)
	require.NoError(t, err)
	_, err = client.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th", Instance: "inst-2"})
	require.NoError(t, err)

	found, ok, err := client.FindCreated(ctx, labels)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)

	require.NoError(t, fake.Expire(inst.ID)) // autoPause: paused, still listed
	require.Equal(t, "paused", fake.State(inst.ID))
	found, ok, err = client.FindCreated(ctx, labels)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)

	_, ok, err = client.FindCreated(ctx, provider.Labels{Instance: "inst-3"})
	require.NoError(t, err)
	assert.False(t, ok)

	fake.SetRateLimited(true)
	_, ok, err = client.FindCreated(ctx, labels)
	assert.False(t, ok)
	assert.ErrorIs(t, err, provider.ErrRateLimited)
}

// A create whose answer is lost is found by its label and used: one
// sandbox, made once; without a label to look for, the loss is the error.
func TestACreateWhoseAnswerIsLostIsFoundAndUsed(t *testing.T) {
	ctx := context.Background()
	fake := e2btest.Start(t, e2btest.Options{})
	client := openClient(t, fake, e2btest.DefaultKey)
	fake.LoseCreates(1)
	inst, err := client.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th", Instance: "lost-1"})
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(e2btest.OpCreate), "made once")
	assert.Equal(t, "running", fake.State(inst.ID))
	res, err := client.Execute(ctx, inst, provider.ExecRequest{Command: "echo found"})
	require.NoError(t, err)
	assert.Equal(t, "found\n", res.Output)

	fake.LoseCreates(1)
	_, err = client.Create(ctx, provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"})
	require.Error(t, err)
}
