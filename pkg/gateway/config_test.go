package gateway

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConfigFromEnv(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	c, err := ConfigFromEnv(env(nil))
	require.NoError(t, err)
	assert.Equal(t, "8080", c.Port)
	assert.Equal(t, "", c.Host, "every interface, as Cloud Run expects")
	assert.Equal(t, DefaultGCSEndpoint, c.GCSEndpoint)
	assert.Equal(t, "metadata", c.GCSAuth)
	assert.False(t, c.AllowEgress)
	assert.Equal(t, 24*time.Hour, c.IdleTTL)
	assert.Equal(t, 1024, c.SandboxMaxFileMB, "a runaway write stops at 1 GiB")
	assert.Zero(t, c.MaxSandboxes, "no cap on sandboxes unless set")

	c, err = ConfigFromEnv(env(map[string]string{"PORT": "9000", "GATEWAY_HOST": "127.0.0.1", "GATEWAY_SECRET": "s",
		"GATEWAY_ALLOW_EGRESS": "true", "GATEWAY_GCS_ENDPOINT": "http://127.0.0.1:4443/", "GATEWAY_GCS_AUTH": "none",
		"GATEWAY_IDLE_TTL": "0", "GATEWAY_MAX_SNAPSHOT_MB": "10", "GATEWAY_SANDBOX_MAX_FILE_MB": "0",
		"GATEWAY_MAX_SANDBOXES": "20"}))
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:4443", c.GCSEndpoint)
	assert.True(t, c.AllowEgress)
	assert.Equal(t, "none", c.GCSAuth)
	assert.EqualValues(t, 10<<20, c.MaxSnapshotBytes)
	assert.Zero(t, c.IdleTTL)
	assert.Zero(t, c.SandboxMaxFileMB, "0 is no limit")
	assert.Equal(t, 20, c.MaxSandboxes)

	c, err = ConfigFromEnv(env(map[string]string{"GATEWAY_GCS_TOKEN": "tok"}))
	require.NoError(t, err)
	assert.Equal(t, "static", c.GCSAuth)
	assert.Equal(t, "tok", c.GCSToken)

	for _, bad := range []map[string]string{
		{"GATEWAY_ALLOW_EGRESS": "maybe"}, {"PORT": "http"}, {"GATEWAY_GCS_AUTH": "key"},
		{"GATEWAY_GCS_AUTH": "static"}, {"GATEWAY_GCS_ENDPOINT": "storage.googleapis.com"},
		{"GATEWAY_IDLE_TTL": "soon"}, {"GATEWAY_MAX_SNAPSHOT_MB": "0"},
		{"GATEWAY_SANDBOX_MAX_FILE_MB": "-1"}, {"GATEWAY_SANDBOX_MAX_FILE_MB": "1G"},
		{"GATEWAY_MAX_SANDBOXES": "-1"},
	} {
		_, err := ConfigFromEnv(env(bad))
		assert.Error(t, err, "%v", bad)
	}
}

func TestIdleSandboxesAreReaped(t *testing.T) {
	h := newHarness(t, func(c *Config) { c.IdleTTL = 200 * time.Millisecond })
	idle := h.create(sandboxSpec{})
	busy := h.create(sandboxSpec{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.exec(busy.ID, map[string]any{"command": "sleep 1.5"})
	}()
	require.Eventually(t, func() bool {
		_, ok := h.gw.sandboxes.get(idle.ID)
		return !ok
	}, 5*time.Second, 20*time.Millisecond, "an idle sandbox is removed")
	_, ok := h.gw.sandboxes.get(busy.ID)
	assert.True(t, ok, "a sandbox running a command is not idle")
	<-done
}

func TestJailIDsAreARunOfIDs(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GATEWAY_JAIL_IDS" {
				return v
			}
			return ""
		}
	}
	c, err := ConfigFromEnv(env("600000-600999"))
	require.NoError(t, err)
	assert.Equal(t, 1000, c.JailIDs.Count)
	for _, bad := range []string{"600000", "7-3", "60000-70000", "0-10", "x-y"} {
		_, err := ConfigFromEnv(env(bad))
		assert.ErrorContains(t, err, "GATEWAY_JAIL_IDS", bad)
	}
}
