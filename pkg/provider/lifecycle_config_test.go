package provider_test

import (
	"encoding/json"
	"testing"

	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lifecycleErrors(t *testing.T, caps provider.Capabilities, raw string) map[string]string {
	t.Helper()
	k := echo{name: "echo", caps: caps}
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(raw))
	require.Empty(t, errs)
	out := map[string]string{}
	for _, fe := range provider.ValidateConfig(k, cfg, provider.Policy{}) {
		out[fe.Field] = fe.Message
	}
	return out
}

func TestLifecycleSettingsAreRefusedWhereTheProviderCannotHonourThem(t *testing.T) {
	errs := lifecycleErrors(t, 0, `{"greeting":"hi","idle_minutes":5,"keep_files":"always"}`)
	assert.Contains(t, errs["idle_minutes"], "cannot be paused")
	assert.Contains(t, errs["keep_files"], "cannot keep files")

	assert.Empty(t, lifecycleErrors(t, provider.PauseResume, `{"greeting":"hi","idle_minutes":5}`))
	assert.Contains(t, lifecycleErrors(t, provider.PauseResume, `{"greeting":"hi","keep_files":"always"}`), "keep_files")
	// Keeping alone pauses by keeping the files and letting the instance go.
	assert.Empty(t, lifecycleErrors(t, provider.SnapshotRestore, `{"greeting":"hi","idle_minutes":5,"keep_files":"always"}`))
	assert.Contains(t, lifecycleErrors(t, provider.SnapshotRestore, `{"greeting":"hi","idle_minutes":5}`)["idle_minutes"], "set keep_files to always")
}

func TestLifecycleSettingsAreCheckedByTheirTags(t *testing.T) {
	errs := lifecycleErrors(t, provider.PauseResume|provider.SnapshotRestore, `{"greeting":"hi","idle_minutes":-1,"keep_files":"forever","max_kept_days":0}`)
	assert.Len(t, errs, 3, "%v", errs)
	for _, key := range []string{"idle_minutes", "keep_files", "max_kept_days"} {
		assert.Contains(t, errs, key)
	}
}

func TestLifecycleOfReadsTheCommonBlock(t *testing.T) {
	k := echo{name: "echo", caps: provider.SnapshotRestore}
	cfg, errs := provider.DecodeConfig(k, json.RawMessage(`{"idle_minutes":3,"keep_files":"always","max_kept_days":2}`))
	require.Empty(t, errs)
	lc := provider.LifecycleOf(cfg)
	assert.Equal(t, provider.Lifecycle{IdleAfter: 3 * 60e9, KeepFiles: true, KeptFor: 48 * 3600e9}, lc)
	defaults := provider.LifecycleOf(k.NewConfig())
	assert.Equal(t, provider.Lifecycle{KeptFor: 7 * 24 * 3600e9}, defaults, "by default nothing pauses and files live as long as their instance")
}
