package opensandbox_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox"
	"github.com/auxilia/sandboxes/pkg/provider/opensandbox/opensandboxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A paused container is resumed on reconnect, with its files.
func TestStatePausedIsResumed(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	run(t, client, inst, "echo kept > kept.txt")
	fake.SetState(inst.ID, opensandboxtest.Paused)

	again, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpResume))
	assert.Equal(t, "kept\n", run(t, client, again, "cat kept.txt").Output)
}

// A container that has exited stays at the controller, which renews it
// all the same: reconnect reads its state, destroys it and says it is gone.
func TestStateExitedIsGone(t *testing.T) {
	for _, st := range []opensandboxtest.State{opensandboxtest.Failed, opensandboxtest.Terminated, opensandboxtest.Unknown} {
		t.Run(string(st), func(t *testing.T) {
			fake, client := setup(t, opensandboxtest.Options{})
			inst := create(t, client)
			fake.SetState(inst.ID, st)

			_, err := client.Reconnect(context.Background(), inst)
			require.ErrorIs(t, err, provider.ErrGone)
			assert.Contains(t, err.Error(), "is "+string(st))
			assert.Empty(t, fake.Sandboxes(), "the dead sandbox is destroyed, not left behind")
		})
	}
}

// Behind the server proxy, an exited container's execd is the proxy's 500
// NETWORK_MODE_ENDPOINT_UNAVAILABLE: a failure, not a missing file.
func TestStateExitedBehindTheProxy(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.SetState(inst.ID, opensandboxtest.Failed)

	_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrFailed)
	assert.Contains(t, providerMessage(t, err), "DOCKER::NETWORK_MODE_ENDPOINT_UNAVAILABLE")
}

// A running container whose execd no longer answers fails its commands;
// the next reconnect asks execd, finds it silent, and gives the sandbox up.
func TestStateRunningWithoutExecdIsGone(t *testing.T) {
	for name, configure := range map[string]func(*opensandbox.Config){"proxied": proxied, "direct": direct} {
		t.Run(name, func(t *testing.T) {
			fake, client := setup(t, opensandboxtest.Options{}, configure)
			inst := create(t, client)
			fake.StopExecd(inst.ID)
			_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
			require.Error(t, err)

			_, err = client.Reconnect(context.Background(), inst)
			require.ErrorIs(t, err, provider.ErrGone)
			assert.Contains(t, err.Error(), "its execd does not answer")
			assert.Positive(t, fake.Calls(opensandboxtest.OpPing))
			assert.Empty(t, fake.Sandboxes())
		})
	}
}

// Execd is asked only after a call to it failed: a healthy warm reconnect
// stays one call.
func TestStateExecdAskedOnlyAfterAFailure(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.Inject(opensandboxtest.OpCommand, opensandboxtest.Fault{Status: 500})
	_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.Error(t, err)
	fake.ClearFaults()

	fake.ResetCalls()
	_, err = client.Reconnect(context.Background(), inst)
	require.NoError(t, err, "execd answers its ping: the sandbox is kept")
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpPing))

	fake.ResetCalls()
	_, err = client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.TotalCalls())
}

// A reconnect renews a lease of which more than five minutes have passed.
func TestStateReconnectRenewsASpentLease(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{})
	inst := create(t, client)
	fake.SetExpiry(inst.ID, time.Now().Add(10*time.Minute))

	fake.ResetCalls()
	_, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, 1, fake.Calls(opensandboxtest.OpRenew))
	sb, ok := fake.Sandbox(inst.ID)
	require.True(t, ok)
	assert.WithinDuration(t, time.Now().Add(30*time.Minute), sb.ExpiresAt, time.Minute)
}

// An execd that refuses the headers is there: the sandbox is not given up.
func TestStateExecdRefusingIsNotGone(t *testing.T) {
	fake, client := setup(t, opensandboxtest.Options{ExecdAccessToken: "execd-token",
		EndpointHeaders: map[string]string{"X-EXECD-ACCESS-TOKEN": "execd-token"}})
	inst := create(t, client)
	var state map[string]any
	require.NoError(t, json.Unmarshal(inst.State, &state))
	state["headers"] = map[string]string{"X-EXECD-ACCESS-TOKEN": "stale"}
	stale := inst
	stale.State, _ = json.Marshal(state)
	_, err := client.Execute(context.Background(), stale, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrUnauthorized)

	_, err = client.Reconnect(context.Background(), stale)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Equal(t, []string{inst.ID}, fake.Sandboxes(), "the sandbox is kept")
}
