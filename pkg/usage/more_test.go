package usage_test

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/usage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command counts in the hour it began, its seconds in each hour it ran;
// terminals count their seconds, kept files their bytes times their time,
// and kept files are priced per GiB-day.
func TestReportMetersCommandsTerminalsAndKeptFiles(t *testing.T) {
	const gib = 1 << 30
	ivs := []auxilia.UsageInterval{
		{Provider: "e2b", State: auxilia.UsageCommand, Start: t0.Add(20 * time.Minute), End: t0.Add(40 * time.Minute)}, // 10:50–11:10
		{Provider: "e2b", State: auxilia.UsageCommand, Start: t0.Add(35 * time.Minute), End: t0.Add(35 * time.Minute)}, // answered at once
		{Provider: "e2b", State: auxilia.UsageTerminal, Start: t0, End: t0.Add(10 * time.Minute)},
		{Provider: "e2b", State: auxilia.UsageKept, Start: t0.Add(-30 * time.Minute), Bytes: 2 * gib}, // kept still
	}
	q := usage.Query{From: t0.Add(-30 * time.Minute), To: t0.Add(90 * time.Minute), Granularity: usage.Hour}
	rows := usage.Report(q, usage.Usage{Intervals: ivs}, t0.Add(90*time.Minute), usage.Rates{"e2b": {KeptGiBDay: 0.24}})
	require.Len(t, rows, 2)
	assert.Equal(t, 1, rows[0].Commands)
	assert.Equal(t, 600.0, rows[0].CommandSeconds)
	assert.Equal(t, 600.0, rows[0].TerminalSeconds)
	assert.Equal(t, 2.0*gib*3600, rows[0].KeptByteSeconds)
	assert.InDelta(t, 2.0*gib/24, rows[0].KeptByteDays(), 1e-6)
	require.NotNil(t, rows[0].EstimatedCost)
	assert.InDelta(t, 2.0/24*0.24, *rows[0].EstimatedCost, 1e-12, "2 GiB for an hour")
	assert.Equal(t, 1, rows[1].Commands, "the one answered at once")
	assert.Equal(t, 600.0, rows[1].CommandSeconds)
	assert.Equal(t, 0.0, rows[1].TerminalSeconds)
}

// A report over rolled-up hours and the rows after them equals the report
// over the rows alone.
func TestReportOverTheRollupEqualsTheRows(t *testing.T) {
	hour := t0.Truncate(time.Hour)
	ivs := []auxilia.UsageInterval{
		{WorkspaceID: "w", SandboxID: "s", Provider: "e2b", ThreadID: "th", State: auxilia.UsageRunning, Start: hour.Add(-10 * time.Minute)},
		{WorkspaceID: "w", SandboxID: "s", Provider: "e2b", ThreadID: "th", State: auxilia.UsageCommand, Start: hour.Add(50 * time.Minute), End: hour.Add(70 * time.Minute)},
		{WorkspaceID: "w", SandboxID: "s", Provider: "e2b", State: auxilia.UsageKept, Start: hour.Add(5 * time.Minute), End: hour.Add(150 * time.Minute), Bytes: 1000},
	}
	events := []auxilia.UsageEvent{{WorkspaceID: "w", SandboxID: "s", Provider: "e2b", Kind: auxilia.UsageCreated, At: hour.Add(time.Minute)}}
	now := hour.Add(3 * time.Hour)
	rates := usage.Rates{"e2b": {RunningHour: 0.1, KeptGiBDay: 0.3}}
	q := usage.Query{From: hour.Add(-30 * time.Minute), To: now, GroupBy: usage.Thread, Granularity: usage.Day}
	raw := usage.Report(q, usage.Usage{Intervals: ivs, Events: events}, now, rates)

	var hours []auxilia.UsageHour
	for h := hour; h.Before(hour.Add(2 * time.Hour)); h = h.Add(time.Hour) {
		hours = append(hours, usage.Hours(h, ivs, events, now)...)
	}
	rolled := usage.Report(q, usage.Usage{Hours: hours, RolledFrom: hour, RolledTo: hour.Add(2 * time.Hour), Intervals: ivs, Events: events}, now, rates)
	require.Equal(t, len(raw), len(rolled))
	for i := range raw {
		assert.Equal(t, raw[i].Key, rolled[i].Key)
		assert.InDelta(t, raw[i].RunningSeconds, rolled[i].RunningSeconds, 1e-6)
		assert.Equal(t, raw[i].Created, rolled[i].Created)
		assert.Equal(t, raw[i].Commands, rolled[i].Commands)
		assert.InDelta(t, raw[i].CommandSeconds, rolled[i].CommandSeconds, 1e-6)
		assert.InDelta(t, raw[i].KeptByteSeconds, rolled[i].KeptByteSeconds, 1e-3)
		assert.InDelta(t, *raw[i].EstimatedCost, *rolled[i].EstimatedCost, 1e-9)
	}
	require.Len(t, raw, 2, "the thread's and the kept files' (no thread)")
	assert.Equal(t, 1, raw[0].Commands+raw[1].Commands)
}
