package e2b_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/e2b"
	"github.com/auxilia/sandboxes/pkg/provider/e2b/e2btest"
)

var labels = provider.Labels{Workspace: "ws", Sandbox: "sb", Thread: "th"}

func TestABadKeyIsAnAuthFailure(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	client := openClient(t, fake, "e2b_wrong")
	err := client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Equal(t, "auth", provider.Reason(err))
	assert.Contains(t, err.Error(), "Invalid API key")
	_, err = client.Create(context.Background(), labels)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.NotContains(t, err.Error(), "e2b_wrong", "the key is never repeated")
}

func TestATemplateThatDoesNotExistIsAConfigFailureOfTheProbe(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	require.NoError(t, openClient(t, fake, e2btest.DefaultKey).Probe(context.Background()), "the base template exists")
	client := openClient(t, fake, e2btest.DefaultKey, func(c *e2b.Config) { c.Template = "no-such-template" })
	err := client.Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Equal(t, "config", provider.Reason(err))
	assert.Contains(t, err.Error(), `template "no-such-template"`)
	assert.Contains(t, err.Error(), "template 'no-such-template' not found", "E2B's own words")
	_, err = client.Create(context.Background(), labels)
	require.ErrorIs(t, err, provider.ErrInvalidConfig, "a create from it too")
}

func TestTheConcurrencyLimitIsAQuotaAndTheRateLimitSaysWhenToComeBack(t *testing.T) {
	fake := e2btest.Start(t, e2btest.Options{})
	client := openClient(t, fake, e2btest.DefaultKey)
	fake.SetConcurrency(-1)
	_, err := client.Create(context.Background(), labels)
	require.ErrorIs(t, err, provider.ErrQuota)
	assert.Equal(t, "quota", provider.Reason(err))

	fake.SetConcurrency(0)
	fake.SetRateLimited(true)
	_, err = client.Create(context.Background(), labels)
	require.ErrorIs(t, err, provider.ErrRateLimited)
	var pe *provider.Error
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 7*time.Second, pe.RetryAfter)
	assert.Contains(t, err.Error(), "Rate limit exceeded")
}

func TestAGoneSandboxIsGoneAndDestroyingItIsFine(t *testing.T) {
	fake, client, inst := started(t)
	fake.SetAutoPause(inst.ID, false)
	require.NoError(t, fake.Expire(inst.ID))
	_, err := client.Reconnect(context.Background(), inst)
	require.ErrorIs(t, err, provider.ErrGone)
	require.ErrorIs(t, client.KeepAlive(context.Background(), inst), provider.ErrGone)
	require.ErrorIs(t, provider.Pauser(client).Pause(context.Background(), inst), provider.ErrGone)
	require.NoError(t, client.Destroy(context.Background(), inst))
}

func TestAWrongEnvdTokenIsAnAuthFailure(t *testing.T) {
	_, client, inst := started(t)
	inst.State = []byte(`{"domain":"e2b.invalid","envdAccessToken":"ea_wrong"}`)
	_, err := client.Stat(context.Background(), inst, inst.WorkDir)
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Contains(t, err.Error(), "unauthorized access")
	_, err = client.Execute(context.Background(), inst, provider.ExecRequest{Command: "true", Timeout: 5 * time.Second})
	require.ErrorIs(t, err, provider.ErrUnauthorized, "a stream's call too")
}
