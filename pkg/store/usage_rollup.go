package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// SystemUsage is the usage rollup's view of every workspace's usage.
type SystemUsage struct{ s System }

// Usage returns the rollup's queries.
func (s System) Usage() SystemUsage { return SystemUsage{s} }

// Rows returns every workspace's metered rows over [from, to): instances'
// intervals with commands, terminals and kept files (terminals seen at
// now), and events.
func (s SystemUsage) Rows(ctx context.Context, from, to, now time.Time) ([]auxilia.UsageInterval, []auxilia.UsageEvent, error) {
	intervals, err := usageIntervals(ctx, s.s.db, nil, from, to)
	if err != nil {
		return nil, nil, err
	}
	spans, err := usageSpans(ctx, s.s.db, nil, from, to, now)
	if err != nil {
		return nil, nil, err
	}
	events, err := usageEvents(ctx, s.s.db, nil, from, to)
	return append(intervals, spans...), events, err
}

// NextHour returns the hour the rollup is to sum next: the one after the
// last it summed, or else the hour of the first metered row; false when
// nothing was ever metered.
func (s SystemUsage) NextHour(ctx context.Context) (time.Time, bool, error) {
	var last []time.Time
	conn := s.s.db.conn(ctx)
	if err := conn.Raw("SELECT hour FROM usage_rolled_hours ORDER BY hour DESC LIMIT 1").Scan(&last).Error; err != nil {
		return time.Time{}, false, err
	}
	if len(last) == 1 {
		return last[0].UTC().Add(time.Hour), true, nil
	}
	var first []time.Time
	for _, q := range []string{
		"SELECT started_at FROM usage_intervals ORDER BY started_at LIMIT 1",
		"SELECT at FROM usage_events ORDER BY at LIMIT 1",
		"SELECT started_at FROM usage_commands ORDER BY started_at LIMIT 1",
		"SELECT started_at FROM usage_terminals ORDER BY started_at LIMIT 1",
		"SELECT started_at FROM usage_kept ORDER BY started_at LIMIT 1",
	} {
		var t []time.Time
		if err := conn.Raw(q).Scan(&t).Error; err != nil {
			return time.Time{}, false, err
		}
		if len(t) == 1 && (len(first) == 0 || t[0].Before(first[0])) {
			first = t
		}
	}
	if len(first) == 0 {
		return time.Time{}, false, nil
	}
	return first[0].UTC().Truncate(time.Hour), true, nil
}

type usageHourRow struct {
	Hour            time.Time
	WorkspaceID     string
	SandboxID       string
	Provider        string
	AgentID         *string
	ThreadID        *string
	RunningSeconds  float64
	PausedSeconds   float64
	Created         int
	Failed          int
	Replaced        int
	Commands        int
	CommandSeconds  float64
	TerminalSeconds float64
	KeptByteSeconds float64
	// Read with the sums, never written.
	SandboxName string `gorm:"->"`
	AgentName   string `gorm:"->"`
	ThreadKey   string `gorm:"->"`
}

func (usageHourRow) TableName() string { return "usage_hours" }

// Save records the hour's sums and the hour as rolled up, in one
// transaction; false (and nothing written) when the hour was rolled up
// already, by this replica or another.
func (s SystemUsage) Save(ctx context.Context, hour time.Time, sums []auxilia.UsageHour) (bool, error) {
	saved := false
	err := s.s.db.InTx(ctx, func(ctx context.Context) error {
		res := s.s.db.conn(ctx).Exec("INSERT INTO usage_rolled_hours (hour, rolled_at) VALUES (?, ?) ON CONFLICT (hour) DO NOTHING", hour.UTC(), Now())
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		saved = true
		if len(sums) == 0 {
			return nil
		}
		rows := make([]usageHourRow, len(sums))
		for i, h := range sums {
			rows[i] = usageHourRow{Hour: hour.UTC(), WorkspaceID: h.WorkspaceID, SandboxID: h.SandboxID, Provider: h.Provider,
				AgentID: ptr(h.AgentID), ThreadID: ptr(h.ThreadID), RunningSeconds: h.RunningSeconds, PausedSeconds: h.PausedSeconds,
				Created: h.Created, Failed: h.Failed, Replaced: h.Replaced, Commands: h.Commands, CommandSeconds: h.CommandSeconds,
				TerminalSeconds: h.TerminalSeconds, KeptByteSeconds: h.KeptByteSeconds}
		}
		return s.s.db.conn(ctx).CreateInBatches(rows, 500).Error
	})
	return saved && err == nil, err
}

// Rolled returns the first run of rolled-up hours in [from, to), as
// [start, end), and the workspace's sums for them; start and end are both
// from when none is rolled up.
func (s TenantUsage) Rolled(ctx context.Context, from, to time.Time) (start, end time.Time, sums []auxilia.UsageHour, err error) {
	conn := s.t.db.conn(ctx)
	var hours []time.Time
	if err := conn.Raw("SELECT hour FROM usage_rolled_hours WHERE hour >= ? AND hour < ? ORDER BY hour", from, to).Scan(&hours).Error; err != nil {
		return from, from, nil, err
	}
	if len(hours) == 0 {
		return from, from, nil, nil
	}
	start = hours[0].UTC()
	end = start
	for _, h := range hours {
		if !h.UTC().Equal(end) {
			break
		}
		end = end.Add(time.Hour)
	}
	var rows []usageHourRow
	err = conn.Raw(`SELECT u.*, `+sprintfNames("usage_hours")+`
		WHERE u.workspace_id = ? AND u.hour >= ? AND u.hour < ?
		ORDER BY u.hour`, s.t.ws, start, end).Scan(&rows).Error
	out := make([]auxilia.UsageHour, len(rows))
	for i, r := range rows {
		out[i] = auxilia.UsageHour{Hour: r.Hour.UTC(), WorkspaceID: r.WorkspaceID, SandboxID: r.SandboxID, SandboxName: r.SandboxName,
			Provider: r.Provider, AgentID: deref(r.AgentID), AgentName: r.AgentName, ThreadID: deref(r.ThreadID), ThreadKey: r.ThreadKey,
			RunningSeconds: r.RunningSeconds, PausedSeconds: r.PausedSeconds, Created: r.Created, Failed: r.Failed, Replaced: r.Replaced,
			Commands: r.Commands, CommandSeconds: r.CommandSeconds, TerminalSeconds: r.TerminalSeconds, KeptByteSeconds: r.KeptByteSeconds}
	}
	return start, end, out, err
}
