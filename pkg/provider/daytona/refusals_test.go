package daytona_test

import (
	"context"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
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
