package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// quietTrips is what one round trip to Postgres costs this machine from
// the bench process, a `SELECT 1` on one connection: back to back, and
// after a pause as long as the provider's round trip. A warm start's
// record comes after such a wait, the provider's, in which neither the
// server nor Postgres had anything to do; a machine whose processors fall
// idle in it pays for waking them.
type quietTrips struct {
	Pause       time.Duration
	BackToBack  series
	AfterAPause series
}

// measureQuietTrips takes n round trips each way, on one connection.
func measureQuietTrips(ctx context.Context, url string, n int, pause time.Duration) (quietTrips, error) {
	res := quietTrips{Pause: pause}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return res, err
	}
	defer conn.Close(ctx)
	trips := func(s *series, before func()) error {
		for range n {
			before()
			var one int
			t0 := time.Now()
			err := conn.QueryRow(ctx, "SELECT 1").Scan(&one)
			s.record(time.Since(t0), err)
			if err != nil {
				return fmt.Errorf("a round trip to Postgres: %w", err)
			}
		}
		s.seal()
		return nil
	}
	var warmup series // the statement prepared, the connection warm
	if err := trips(&warmup, func() {}); err != nil {
		return res, err
	}
	if err := trips(&res.BackToBack, func() {}); err != nil {
		return res, err
	}
	err = trips(&res.AfterAPause, func() {
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	})
	return res, err
}
