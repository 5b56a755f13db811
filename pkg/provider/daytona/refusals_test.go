package daytona_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/daytona"
	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A start over the organisation's quota is refused at once, in Daytona's
// words, without waiting for a sandbox that will not start.
func TestStartOverQuotaIsRefusedAtOnce(t *testing.T) {
	fake, client, inst := started(t, daytonatest.Options{})
	ctx := context.Background()
	require.NoError(t, fake.Stop(inst.ID))
	_, err := client.Create(ctx, provider.Labels{})
	require.NoError(t, err)
	fake.SetQuota(daytonatest.Quota{CPU: 1})
	fake.ResetCalls()

	begun := time.Now()
	_, err = client.Reconnect(ctx, inst)
	require.ErrorIs(t, err, provider.ErrQuota)
	assert.Equal(t, "quota", provider.Reason(err))
	assert.Contains(t, err.Error(), "Total CPU limit exceeded. Maximum allowed: 1.")
	assert.Less(t, time.Since(begun), quickWaits.Settle/2, "no wait for a refused start")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpStartSandbox), "a refusal is not asked again")
}

func TestCreateOverQuotaIsAQuotaRefusal(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.SetQuota(daytonatest.Quota{Disk: 2})
	_, err := openClient(t, fake, daytonatest.DefaultKey).Create(context.Background(), provider.Labels{})
	require.ErrorIs(t, err, provider.ErrQuota)
	assert.Contains(t, err.Error(), "Total disk limit exceeded. Maximum allowed: 2GiB.")
}

// Daytona answers 403 for more than a bad key: each keeps its own words
// and is sorted by what the user must fix.
func TestForbiddenIsNotAlwaysTheKey(t *testing.T) {
	ctx := context.Background()
	t.Run("suspended organisation", func(t *testing.T) {
		fake, client, inst := started(t, daytonatest.Options{})
		require.NoError(t, fake.Stop(inst.ID))
		fake.SuspendOrganization("Payment method required")
		_, err := client.Reconnect(ctx, inst)
		require.ErrorIs(t, err, provider.ErrQuota)
		assert.Equal(t, "quota", provider.Reason(err))
		assert.Contains(t, err.Error(), "HTTP 403 Forbidden: Organization is suspended: Payment method required")
	})
	t.Run("region not allowed", func(t *testing.T) {
		fake := daytonatest.Start(t, daytonatest.Options{ClosedTargets: []string{"eu"}})
		client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) { c.Target = "eu" })
		_, err := client.Create(ctx, provider.Labels{})
		require.ErrorIs(t, err, provider.ErrInvalidConfig)
		assert.Equal(t, "config", provider.Reason(err))
		assert.Contains(t, err.Error(), "Region eu is not available to the organization")
	})
	t.Run("key without the permission", func(t *testing.T) {
		fake := daytonatest.Start(t, daytonatest.Options{})
		fake.AddScopedKey("dtn_read_only")
		_, err := openClient(t, fake, "dtn_read_only").Create(ctx, provider.Labels{})
		require.ErrorIs(t, err, provider.ErrUnauthorized)
		assert.Contains(t, err.Error(), "Forbidden resource")
		assert.Contains(t, err.Error(), "write:sandboxes")
	})
}

// The probe reads the key's permissions: a key that cannot create or
// delete sandboxes would fail every run, so it fails the probe instead.
func TestProbeRefusesAKeyWithoutSandboxPermissions(t *testing.T) {
	fake := daytonatest.Start(t, daytonatest.Options{})
	fake.AddScopedKey("dtn_no_delete", daytonatest.PermWriteSandboxes)
	err := openClient(t, fake, "dtn_no_delete").Probe(context.Background())
	require.ErrorIs(t, err, provider.ErrUnauthorized)
	assert.Equal(t, "auth", provider.Reason(err))
	assert.Contains(t, err.Error(), "delete:sandboxes")
	assert.NotContains(t, err.Error(), "dtn_no_delete")

	fake.AddScopedKey("dtn_full", daytonatest.PermWriteSandboxes, daytonatest.PermDeleteSandboxes)
	require.NoError(t, openClient(t, fake, "dtn_full").Probe(context.Background()))
}

// Daytona's cloud refuses a sandbox's own network settings in an
// organisation whose tier limits egress (tiers 1 and 2): the refusal is the
// sandbox's configuration, named on its network setting, not a failure of
// Daytona; without network settings the same organisation gets sandboxes.
func TestNetworkRestrictedByTheTierIsRefusedOnNetwork(t *testing.T) {
	ctx := context.Background()
	fake := daytonatest.Start(t, daytonatest.Options{LimitedNetworkEgress: true})
	client := openClient(t, fake, daytonatest.DefaultKey, func(c *daytona.Config) { c.Network = provider.DenyNetwork() })
	_, err := client.Create(ctx, provider.Labels{})
	require.ErrorIs(t, err, provider.ErrInvalidConfig)
	assert.Equal(t, "config", provider.Reason(err))
	var pe *provider.Error
	require.ErrorAs(t, err, &pe)
	assert.True(t, strings.HasPrefix(pe.Message, "network: "), "names the setting: %q", pe.Message)
	assert.Equal(t, "network", pe.Field, "carries the setting for a field error")
	assert.Equal(t, "network", provider.RefusedField(err))
	assert.Contains(t, pe.Message, "Network access is restricted and cannot be overridden at the sandbox level")
	assert.Equal(t, 1, fake.Calls(daytonatest.OpCreateSandbox), "a refusal is not asked again")
	assert.Empty(t, fake.Sandboxes())

	_, err = openClient(t, fake, daytonatest.DefaultKey).Create(ctx, provider.Labels{})
	require.NoError(t, err, "a sandbox without network settings is made")
}
