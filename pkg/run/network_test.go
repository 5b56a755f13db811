package run_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
)

func withConfig(config string) auxilia.Sandbox {
	return auxilia.Sandbox{SandboxSpec: auxilia.SandboxSpec{Config: json.RawMessage(config)}}
}

// Only an edit of the rules counts: their order within a list does not,
// an older config's switch reads as the rules it meant, and a config
// without a network counts as changed (applying the same rules is harmless).
func TestNetworkChanged(t *testing.T) {
	rules := `{"network":{"default":"deny","allow":["a.example","b.example"],"deny":[]},"timeout":60}`
	for _, tt := range []struct {
		name          string
		before, after string
		want          bool
	}{
		{"another key", rules, `{"network":{"default":"deny","allow":["a.example","b.example"],"deny":[]},"timeout":90}`, false},
		{"reordered", rules, `{"network":{"default":"deny","allow":["b.example","a.example"],"deny":[]}}`, false},
		{"one more", rules, `{"network":{"default":"deny","allow":["a.example","b.example","c.example"],"deny":[]}}`, true},
		{"default", rules, `{"network":{"default":"allow","allow":["a.example","b.example"],"deny":[]}}`, true},
		{"old switch", `{"network":false}`, `{"network":{"default":"deny","allow":[],"deny":[]}}`, false},
		{"none before", `{}`, rules, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, run.NetworkChanged(withConfig(tt.before), withConfig(tt.after)))
		})
	}
}

func TestDescribeNetworkUpdatesNamesTheInstancesBehind(t *testing.T) {
	got := run.DescribeNetworkUpdates([]run.NetworkUpdate{
		{InstanceRef: "i-1", Outcome: run.NetworkApplied},
		{InstanceRef: "i-2", Outcome: run.NetworkNextStart, Reason: "paused"},
		{InstanceRef: "i-3", Outcome: run.NetworkFailed, Reason: "refused"},
	})
	assert.Equal(t, "network rules: 1 instances applied, 1 on next start, 1 failed (i-2 next_start, i-3 failed)", got)
}
