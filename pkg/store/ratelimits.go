package store

import (
	"context"
	"time"
)

// rateTable counts requests per token in fixed windows, in the database,
// so that a limit holds across replicas.
type rateTable struct{ db *DB }

func (db *DB) rateWindows() rateTable { return rateTable{db} }

// Hit counts one request of the token in the window starting at start and
// returns the window's count so far.
func (s rateTable) Hit(ctx context.Context, tokenID string, start time.Time) (int, error) {
	var hits int
	err := s.db.conn(ctx).Raw(`INSERT INTO rate_windows (token_id, window_start, hits) VALUES (?, ?, 1)
		ON CONFLICT (token_id, window_start) DO UPDATE SET hits = rate_windows.hits + 1
		RETURNING hits`, tokenID, start.UTC()).Scan(&hits).Error
	return hits, err
}

// Purge forgets windows that ended before `before`.
func (s rateTable) Purge(ctx context.Context, before time.Time) error {
	return s.db.conn(ctx).Exec("DELETE FROM rate_windows WHERE window_start < ?", before.UTC()).Error
}
