package e2b_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
)

func TestTheCreateCarriesTheTemplateLifetimeLabelsAndEnv(t *testing.T) {
	fake, _, _ := started(t, func(c *e2b.Config) {
		c.LifetimeMinutes = 30
		c.Env = map[string]string{"PIP_INDEX_URL": "https://pypi.example/simple"}
	})
	created := fake.Created()
	require.Len(t, created, 1)
	got := created[0]
	assert.Equal(t, e2btest.BaseTemplate, got.TemplateID)
	require.NotNil(t, got.Timeout)
	assert.Equal(t, 1800, *got.Timeout)
	assert.True(t, got.AutoPause, "paused, not killed, at the end of its lifetime by default")
	assert.Equal(t, map[string]string{"auxilia": "true", "auxilia_workspace": "ws", "auxilia_sandbox": "sb", "auxilia_thread": "th"}, got.Metadata)
	assert.Equal(t, map[string]string{"PIP_INDEX_URL": "https://pypi.example/simple"}, got.EnvVars)
	assert.Nil(t, got.Network, "anywhere: no network settings")
	assert.Nil(t, got.AllowInternet)
}

func TestTheEnvironmentReachesCommands(t *testing.T) {
	_, client, inst := started(t, func(c *e2b.Config) { c.Env = map[string]string{"GREETING": "hello"} })
	assert.Equal(t, "hello\n", run(t, client, inst, "echo $GREETING").Output)
}

// A warm run's reconnect is one call, connect, which renews the
// sandbox's lifetime; keep-alive sets it anew from now.
func TestAWarmReconnectIsOneCallThatRenewsTheLifetime(t *testing.T) {
	fake, client, inst := started(t, func(c *e2b.Config) { c.LifetimeMinutes = 10 })
	fake.ResetCalls()
	before := time.Now()
	again, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{e2btest.OpConnect: 1}, fake.AllCalls(), "one call, to the control plane only")
	assert.Equal(t, inst.WorkDir, again.WorkDir)
	assert.WithinDuration(t, before.Add(10*time.Minute), fake.EndAt(inst.ID), 5*time.Second)

	fake.ResetCalls()
	require.NoError(t, client.KeepAlive(context.Background(), again))
	assert.Equal(t, map[string]int{e2btest.OpTimeout: 1}, fake.AllCalls())
	assert.WithinDuration(t, time.Now().Add(10*time.Minute), fake.EndAt(inst.ID), 5*time.Second)
}

func TestPauseKeepsTheSandboxAndReconnectResumesIt(t *testing.T) {
	fake, client, inst := started(t)
	pauser := provider.Pauser(client)
	require.NoError(t, pauser.Pause(context.Background(), inst))
	assert.Equal(t, "paused", fake.State(inst.ID))
	require.NoError(t, pauser.Pause(context.Background(), inst), "E2B's 409 for a paused sandbox is no error")
	_, err := client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrFailed, "a paused sandbox's envd is not reached")
	assert.NotErrorIs(t, err, provider.ErrGone, "E2B's proxy cannot tell paused from gone")
	assert.Contains(t, err.Error(), "The sandbox was not found")
	again, err := client.Reconnect(context.Background(), inst)
	require.NoError(t, err)
	assert.Equal(t, "running", fake.State(inst.ID))
	assert.Equal(t, "ok\n", run(t, client, again, "echo ok").Output)
}

func TestForgottenKeptFilesLoseTheirTemplate(t *testing.T) {
	fake, client, inst := started(t)
	keeper := provider.Keeper(client)
	kept, err := keeper.Keep(context.Background(), inst)
	require.NoError(t, err)
	assert.True(t, fake.HasTemplate(kept.ID))
	assert.Equal(t, "running", fake.State(inst.ID), "the sandbox runs on")
	require.NoError(t, keeper.Forget(context.Background(), kept))
	assert.False(t, fake.HasTemplate(kept.ID))
}
