package opensandbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var labelled = provider.Labels{Workspace: "ws-1", Sandbox: "sb-1", Thread: "th-1", Instance: "0b9d6c1e-5a7f-4e47-9a57-3c1a3f2d9e10"}

func TestFindCreated(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	finder, ok := client.(provider.Finder)
	require.True(t, ok, "an OpenSandbox client finds instances by label")
	create(t, client) // another creation's instance
	inst, err := client.Create(context.Background(), labelled)
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })

	found, ok, err := finder.FindCreated(context.Background(), labelled)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, inst.ID, found.ID)

	other := labelled
	other.Instance = "1c2f6b9a-0000-4000-8000-000000000000"
	_, ok, err = finder.FindCreated(context.Background(), other)
	require.NoError(t, err)
	assert.False(t, ok, "no instance was made under that creation")

	fake.Inject(opensandboxtest.OpList, opensandboxtest.Fault{Status: 500, Code: "DOCKER::SANDBOX_QUERY_FAILED"})
	_, ok, err = finder.FindCreated(context.Background(), labelled)
	assert.ErrorIs(t, err, provider.ErrFailed, "a failed listing is an error, never \"not found\"")
	assert.False(t, ok)
}

func TestALostCreateAnswerFindsTheSandbox(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{Lost: true, Status: 502, Message: "upstream timed out"})
	inst, err := client.Create(context.Background(), labelled)
	require.NoError(t, err, "the sandbox the server made is found by its label and used")
	t.Cleanup(func() { _ = client.Destroy(context.Background(), inst) })
	assert.Equal(t, []string{inst.ID}, fake.Sandboxes(), "and no second one is made")
	assert.Equal(t, "ok\n", run(t, client, inst, "echo ok").Output)
}

func TestACallerLeavingMidCreateLeavesNothing(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{Lost: true, Delay: 10 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := client.Create(ctx, labelled)
	require.Error(t, err)
	require.Equal(t, 1, fake.Calls(opensandboxtest.OpCreate), "the controller made a sandbox")
	assert.Empty(t, fake.Sandboxes(), "the sandbox made for a caller that left is destroyed")
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpDelete))
}

func TestARefusedCreateIsNotLookedFor(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	fake.Inject(opensandboxtest.OpCreate, opensandboxtest.Fault{Status: 400, Code: "VOLUME::HOST_PATH_NOT_ALLOWED"})
	_, err := client.Create(context.Background(), labelled)
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Zero(t, fake.Calls(opensandboxtest.OpList), "a refusal made nothing to look for")
}
