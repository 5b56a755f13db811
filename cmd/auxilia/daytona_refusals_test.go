package main_test

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/daytona/daytonatest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run Daytona refuses for the organisation's quota is answered at once,
// in Daytona's words, with the reason quota.
func TestDaytonaQuotaRefusesTheRunAtOnce(t *testing.T) {
	fake, err := daytonatest.New(daytonatest.Options{})
	require.NoError(t, err)
	defer fake.Close()
	fake.SetQuota(daytonatest.Quota{Disk: 1})
	srv := instance(t)
	agent := bindNew(t, srv, map[string]any{"name": "Daytona", "provider": "daytona", "url": fake.URL(), "secret": daytonatest.DefaultKey})

	begun := time.Now()
	status, p := startRun(t, srv, agent, "t1")
	require.Equal(t, 409, status, "%v", p)
	assert.Equal(t, "sandbox_unavailable", p["reason"])
	assert.Equal(t, "quota", p["probe_reason"])
	assert.Contains(t, p["detail"], "Total disk limit exceeded. Maximum allowed: 1GiB.")
	assert.Less(t, time.Since(begun), 30*time.Second)
}
