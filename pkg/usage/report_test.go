package usage_test

import (
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/usage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)

// An interval that crosses hour boundaries is split at each, exactly.
func TestReportSplitsIntervalsAtHourBoundaries(t *testing.T) {
	ivs := []auxilia.UsageInterval{
		{SandboxID: "s1", SandboxName: "box", Provider: "e2b", State: auxilia.UsageRunning, Start: t0, End: t0.Add(90 * time.Minute)},
		{SandboxID: "s1", SandboxName: "box", Provider: "e2b", State: auxilia.UsagePaused, Start: t0.Add(90 * time.Minute), End: t0.Add(100 * time.Minute)},
	}
	q := usage.Query{From: t0.Add(-time.Hour), To: t0.Add(3 * time.Hour), GroupBy: usage.Sandbox, Granularity: usage.Hour}
	rows := usage.Report(q, usage.Usage{Intervals: ivs}, t0.Add(5*time.Hour), nil)
	require.Len(t, rows, 3) // 10:30–12:00 running, 12:00–12:10 paused
	assert.Equal(t, t0.Add(-30*time.Minute), rows[0].PeriodStart, "10:00")
	assert.Equal(t, 1800.0, rows[0].RunningSeconds)
	assert.Equal(t, "s1", rows[0].Key)
	assert.Equal(t, "box", rows[0].Name)
	assert.Equal(t, 3600.0, rows[1].RunningSeconds)
	assert.Equal(t, 0.0, rows[1].PausedSeconds)
	assert.Equal(t, 0.0, rows[2].RunningSeconds)
	assert.Equal(t, 600.0, rows[2].PausedSeconds)
	assert.Equal(t, t0.Add(150*time.Minute), rows[2].PeriodEnd, "13:00")
	assert.Nil(t, rows[0].EstimatedCost, "no rates, no estimate")
}

// An open interval counts until now, and nothing outside [from, to) counts.
func TestReportClipsToTheSpanAndCountsOpenIntervalsUntilNow(t *testing.T) {
	ivs := []auxilia.UsageInterval{{ThreadID: "th", ThreadKey: "t1", Provider: "e2b", State: auxilia.UsageRunning, Start: t0}}
	events := []auxilia.UsageEvent{
		{ThreadID: "th", Kind: auxilia.UsageCreated, At: t0.Add(time.Minute)},
		{ThreadID: "th", Kind: auxilia.UsageReplaced, At: t0.Add(-48 * time.Hour)}, // before from
	}
	q := usage.Query{From: t0.Add(10 * time.Minute), To: t0.Add(48 * time.Hour), GroupBy: usage.Thread, Granularity: usage.Day}
	rows := usage.Report(q, usage.Usage{Intervals: ivs, Events: events}, t0.Add(40*time.Minute), nil)
	require.Len(t, rows, 1)
	assert.Equal(t, 1800.0, rows[0].RunningSeconds, "from `from` until now")
	assert.Equal(t, 0, rows[0].Created, "created before from")
	assert.Equal(t, 0, rows[0].Replaced)
	assert.Equal(t, q.From, rows[0].PeriodStart, "the first period starts at from")
}

// The estimate prices each state at its provider's rate, and is left out
// of a row with a provider the operator gave no rate.
func TestReportEstimatesCostFromEachProvidersRates(t *testing.T) {
	ivs := []auxilia.UsageInterval{
		{Provider: "e2b", State: auxilia.UsageRunning, Start: t0, End: t0.Add(2 * time.Hour)},
		{Provider: "e2b", State: auxilia.UsagePaused, Start: t0.Add(2 * time.Hour), End: t0.Add(12 * time.Hour)},
		{Provider: "daytona", State: auxilia.UsageRunning, Start: t0, End: t0.Add(time.Hour)},
	}
	rates := usage.Rates{"e2b": {RunningHour: 0.10, PausedHour: 0.01}}
	q := usage.Query{From: t0.Add(-time.Hour), To: t0.Add(24 * time.Hour), GroupBy: usage.Provider, Granularity: usage.Day}
	rows := usage.Report(q, usage.Usage{Intervals: ivs}, t0.Add(30*time.Hour), rates)
	require.Len(t, rows, 2)
	assert.Equal(t, "daytona", rows[0].Key)
	assert.Nil(t, rows[0].EstimatedCost, "daytona has no rate")
	require.NotNil(t, rows[1].EstimatedCost)
	assert.InDelta(t, 2*0.10+10*0.01, *rows[1].EstimatedCost, 1e-9)

	total := usage.Report(usage.Query{From: q.From, To: q.To, Granularity: usage.Day}, usage.Usage{Intervals: ivs}, t0.Add(30*time.Hour), rates)
	require.Len(t, total, 1)
	assert.Nil(t, total[0].EstimatedCost, "a total with an unrated provider is not estimated")
	assert.Equal(t, 3*3600.0, total[0].RunningSeconds)
}

func TestParseRate(t *testing.T) {
	r, err := usage.ParseRate("running=0.10, paused=0.01")
	require.NoError(t, err)
	assert.Equal(t, usage.Rate{RunningHour: 0.10, PausedHour: 0.01}, r)
	r, err = usage.ParseRate("kept=0.002")
	require.NoError(t, err)
	assert.Equal(t, usage.Rate{KeptGiBDay: 0.002}, r)
	for _, bad := range []string{"running", "running=-1", "running=abc", "kept=-1", "stored=1", "running=NaN"} {
		_, err := usage.ParseRate(bad)
		assert.Error(t, err, bad)
	}
}

func TestParseRatesNamesEachBadProvider(t *testing.T) {
	known := []string{"e2b", "daytona", "opensandbox"}
	rates, errs := usage.ParseRates("e2b:running=0.1,paused=0.02; daytona:running=x; modal:running=1; opensandbox", known)
	assert.Equal(t, usage.Rates{"e2b": {RunningHour: 0.1, PausedHour: 0.02}}, rates)
	require.Len(t, errs, 3)
	assert.Contains(t, errs[0].Error(), "daytona")
	assert.Contains(t, errs[1].Error(), `"modal" is not a provider`)
	assert.Contains(t, errs[2].Error(), "opensandbox")
	assert.NoError(t, usage.CheckCurrency("EUR"))
	assert.Error(t, usage.CheckCurrency("euro"))
}
