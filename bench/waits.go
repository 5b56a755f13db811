package main

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// dbWaits is what the server reports at /metrics of its waits for a
// database connection, in its line (auxilia_db_line_*) and in its pool
// (database/sql's): how many times a statement had to wait, and for how
// long in all.
type dbWaits struct {
	Count    int64
	Duration time.Duration
	MaxOpen  int64 // the pool's size
	// Taken and Held are the line's places taken and how long they were
	// held, all together (auxilia_db_line_places_taken_total,
	// auxilia_db_line_held_seconds_total).
	Taken int64
	Held  time.Duration
}

// The server's /metrics series of its database pool (Prometheus's DBStats
// collector, registered as "auxilia").
const (
	waitCountSeries        = `go_sql_wait_count_total{db_name="auxilia"}`
	waitDurationSeries     = `go_sql_wait_duration_seconds_total{db_name="auxilia"}`
	maxOpenSeries          = `go_sql_max_open_connections{db_name="auxilia"}`
	lineWaitCountSeries    = `auxilia_db_line_waits_total`
	lineWaitDurationSeries = `auxilia_db_line_wait_seconds_total`
	lineTakenSeries        = `auxilia_db_line_places_taken_total`
	lineHeldSeries         = `auxilia_db_line_held_seconds_total`
)

func readDBWaits(ctx context.Context, a api) (dbWaits, error) {
	raw, err := a.call(ctx, http.MethodGet, "/metrics", nil, http.StatusOK)
	if err != nil {
		return dbWaits{}, err
	}
	var w dbWaits
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			continue
		}
		switch name {
		case waitCountSeries, lineWaitCountSeries:
			w.Count += int64(v)
		case waitDurationSeries, lineWaitDurationSeries:
			w.Duration += seconds(v)
		case maxOpenSeries:
			w.MaxOpen = int64(v)
		case lineTakenSeries:
			w.Taken = int64(v)
		case lineHeldSeries:
			w.Held = seconds(v)
		}
	}
	return w, nil
}

// seconds is a Prometheus value in seconds as a duration.
func seconds(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }

// since is what happened between an earlier reading and this one.
func (w dbWaits) since(earlier dbWaits) dbWaits {
	return dbWaits{Count: w.Count - earlier.Count, Duration: w.Duration - earlier.Duration, MaxOpen: w.MaxOpen,
		Taken: w.Taken - earlier.Taken, Held: w.Held - earlier.Held}
}

// plus is both readings' waits and holds together, as over both their spans.
func (w dbWaits) plus(other dbWaits) dbWaits {
	return dbWaits{Count: w.Count + other.Count, Duration: w.Duration + other.Duration, MaxOpen: other.MaxOpen,
		Taken: w.Taken + other.Taken, Held: w.Held + other.Held}
}

// meanHold is how long a place in line was held on average.
func (w dbWaits) meanHold() time.Duration {
	if w.Taken == 0 {
		return 0
	}
	return w.Held / time.Duration(w.Taken)
}

// lockWaits is what sampling pg_stat_activity saw: how many samples found
// a session of the run's database waiting for a lock, and the most at once.
type lockWaits struct {
	Samples, Waiting int
	Most             int
	Interval         time.Duration
}

// sampleLockWaits looks at the database's sessions every interval, on a
// connection of its own, until the returned function is called.
func (db *database) sampleLockWaits(ctx context.Context, interval time.Duration) (stop func() lockWaits, err error) {
	conn, err := pgx.Connect(ctx, db.admin)
	if err != nil {
		return nil, err
	}
	const q = `SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`
	quit, finished := make(chan struct{}), make(chan lockWaits)
	go func() {
		defer conn.Close(context.Background())
		out := lockWaits{Interval: interval}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			var n int
			if conn.QueryRow(ctx, q, db.name).Scan(&n) == nil {
				out.Samples++
				if n > 0 {
					out.Waiting++
				}
				out.Most = max(out.Most, n)
			}
			select {
			case <-quit:
				finished <- out
				return
			case <-t.C:
			}
		}
	}()
	return func() lockWaits {
		close(quit)
		return <-finished
	}, nil
}
