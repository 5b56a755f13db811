package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// The instance-hours quota counts the hours the workspace's instances ran
// this calendar month (UTC), read from the usage intervals the lifecycle
// keeps (0013_usage.sql): a paused instance's hours are not counted, as it
// holds no compute. Its use only grows with time, never with an admission,
// so it needs no lock: a replica that reads it a moment late lets in one
// instance a moment late, not one too many at once.

// monthStart is the first instant of now's calendar month, in UTC.
func monthStart(now time.Time) time.Time {
	now = now.UTC()
	return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// runningHours is the whole hours the workspace's instances ran from the
// start of now's month to now.
func (s quotaTable) runningHours(ctx context.Context, workspaceID string, now time.Time) (int, error) {
	from := monthStart(now)
	var spans []struct {
		StartedAt time.Time
		EndedAt   *time.Time
	}
	if err := s.db.conn(ctx).Raw(`SELECT started_at, ended_at FROM usage_intervals
		WHERE workspace_id = ? AND state = 'running' AND started_at < ? AND (ended_at IS NULL OR ended_at > ?)`,
		workspaceID, now, from).Scan(&spans).Error; err != nil {
		return 0, err
	}
	var ran time.Duration
	for _, span := range spans {
		ran += within(span.StartedAt, span.EndedAt, from, now)
	}
	return int(ran / time.Hour), nil
}

// within is how much of an interval, started and ended (nil: still open),
// lies between from and now.
func within(started time.Time, ended *time.Time, from, now time.Time) time.Duration {
	end := now
	if ended != nil && ended.Before(now) {
		end = *ended
	}
	if started.Before(from) {
		started = from
	}
	if end.After(started) {
		return end.Sub(started)
	}
	return 0
}

// admitHours refuses a new instance once the month's instance-hours are
// used up; waiting helps only when the next month starts. Reaching 80 % is
// announced here, if the alerts job has not yet; 100 % refuses, and is
// announced by that job (what is written here is undone with the refusal).
func (s quotaTable) admitHours(ctx context.Context, row quotaRow, limit int) error {
	now := Now()
	used, err := s.runningHours(ctx, row.WorkspaceID, now)
	if err != nil {
		return err
	}
	if used < limit {
		return s.raise(ctx, row, quotaReached(auxilia.QuotaInstanceHours, used, limit))
	}
	next := monthStart(now).AddDate(0, 1, 0)
	return auxilia.QuotaExceeded(auxilia.QuotaInstanceHours, limit, used, next.Sub(now).Round(time.Second))
}
