package metrics

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
)

func TestUsageSeriesArePerWorkspace(t *testing.T) {
	p := New()
	var asked [2]time.Time
	p.WatchUsage(func(_ context.Context, monthStart, now time.Time) ([]auxilia.WorkspaceUsage, error) {
		asked = [2]time.Time{monthStart, now}
		return []auxilia.WorkspaceUsage{{Workspace: "acme",
			Instances:    map[string]int{auxilia.UsageRunning: 3, auxilia.UsagePaused: 1},
			MonthSeconds: map[string]float64{auxilia.UsageRunning: 7200.5},
			Events:       map[string]int64{auxilia.UsageCreated: 4, auxilia.UsageReplaced: 1},
			Commands:     12, CommandSeconds: 30.5, TerminalSeconds: 600, KeptByteSeconds: 2e9, KeptBytes: 1 << 20}}, nil
	})
	body := scrape(t, p)
	assert.Contains(t, body, `auxilia_workspace_usage_up 1`)
	assert.Contains(t, body, `auxilia_workspace_instances{state="running",workspace="acme"} 3`)
	assert.Contains(t, body, `auxilia_workspace_instances{state="paused",workspace="acme"} 1`)
	assert.Contains(t, body, `auxilia_workspace_instance_seconds_month{state="running",workspace="acme"} 7200.5`)
	assert.Contains(t, body, `auxilia_workspace_instance_seconds_month{state="paused",workspace="acme"} 0`)
	assert.Contains(t, body, `auxilia_workspace_instance_events_total{kind="created",workspace="acme"} 4`)
	assert.Contains(t, body, `auxilia_workspace_instance_events_total{kind="failed",workspace="acme"} 0`)
	assert.Contains(t, body, `auxilia_workspace_commands_total{workspace="acme"} 12`)
	assert.Contains(t, body, `auxilia_workspace_command_seconds_total{workspace="acme"} 30.5`)
	assert.Contains(t, body, `auxilia_workspace_terminal_seconds_total{workspace="acme"} 600`)
	assert.Contains(t, body, `auxilia_workspace_kept_byte_seconds_total{workspace="acme"} 2e+09`)
	assert.Contains(t, body, `auxilia_workspace_kept_bytes{workspace="acme"} 1.048576e+06`)
	assert.Equal(t, 1, asked[0].Day(), "from the start of the month")
	assert.Zero(t, asked[0].Hour())
	assert.Equal(t, asked[1].Month(), asked[0].Month())
}

func TestUsageSeriesSayWhenTheDatabaseCannotBeRead(t *testing.T) {
	p := New()
	p.WatchUsage(func(context.Context, time.Time, time.Time) ([]auxilia.WorkspaceUsage, error) {
		return nil, errors.New("connection refused")
	})
	body := scrape(t, p)
	assert.Contains(t, body, `auxilia_workspace_usage_up 0`)
	assert.NotContains(t, body, `auxilia_workspace_instances{`)
}
