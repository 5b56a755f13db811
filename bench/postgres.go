package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
)

// database is a Postgres database made for one bench run and dropped after it.
type database struct {
	admin string // URL of the database we connect to for creating and dropping
	name  string
	URL   string // the new database's URL
}

// createDatabase makes a fresh, empty database beside the one admin points at.
func createDatabase(ctx context.Context, admin string) (*database, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return nil, fmt.Errorf("postgres URL: %w", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	db := &database{admin: admin, name: "auxilia_bench_" + hex.EncodeToString(b)}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, fmt.Errorf("connect to Postgres (-postgres): %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db.name}.Sanitize()); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	u.Path = "/" + db.name
	db.URL = u.String()
	return db, nil
}

// drop removes the database, closing what is still connected to it.
func (db *database) drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, db.admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db.name}.Sanitize()+" WITH (FORCE)")
	return err
}

// sessions is how many sessions Postgres has opened to the database so far
// (pg_stat_database.sessions): the difference across a measurement tells how
// many connections the server under load opened. Backends report it within
// a second or so, and at once when they disconnect, so it is approximate.
func (db *database) sessions(ctx context.Context) (int64, error) {
	conn, err := pgx.Connect(ctx, db.admin)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, "SELECT sessions FROM pg_stat_database WHERE datname = $1", db.name).Scan(&n)
	return n, err
}

func postgresVersion(ctx context.Context, admin string) string {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "unknown"
	}
	defer conn.Close(ctx)
	var v string
	if conn.QueryRow(ctx, "SHOW server_version").Scan(&v) != nil {
		return "unknown"
	}
	var maxConns string
	if conn.QueryRow(ctx, "SHOW max_connections").Scan(&maxConns) == nil {
		v += "; max_connections " + maxConns
	}
	return v
}

// countSessions runs fn and returns how many sessions were opened to the
// run's database meanwhile.
func (s *stack) countSessions(ctx context.Context, fn func()) (int64, error) {
	before, err := s.db.sessions(ctx)
	if err != nil {
		return 0, err
	}
	fn()
	after, err := s.db.sessions(ctx)
	return after - before, err
}

// dbActivity is what Postgres has counted of a database's work so far
// (pg_stat_database), as its sessions have reported it.
type dbActivity struct {
	Commits     int64 // transactions committed (xact_commit)
	RowsWritten int64 // rows inserted, updated and deleted (tup_inserted + tup_updated + tup_deleted)
}

func (a dbActivity) minus(b dbActivity) dbActivity {
	return dbActivity{Commits: a.Commits - b.Commits, RowsWritten: a.RowsWritten - b.RowsWritten}
}

func (db *database) activity(ctx context.Context) (dbActivity, error) {
	conn, err := pgx.Connect(ctx, db.admin)
	if err != nil {
		return dbActivity{}, err
	}
	defer conn.Close(ctx)
	var a dbActivity
	err = conn.QueryRow(ctx, "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = $1",
		db.name).Scan(&a.Commits, &a.RowsWritten)
	return a, err
}

// statsDelay is how long a Postgres session may hold the counts of its
// last transactions before it reports them: a session gone idle less than
// a second after its last report waits for its idle timeout, ten seconds
// (PGSTAT_MIN_INTERVAL and PGSTAT_IDLE_INTERVAL in pgstat.c).
const statsDelay = 11 * time.Second

// countActivity runs fn and returns what the database did meanwhile, less
// what it did in as long a time right after, when nothing ran (the server's
// background jobs): approximate, as the jobs do not run evenly.
func (db *database) countActivity(ctx context.Context, fn func() error) (dbActivity, error) {
	time.Sleep(statsDelay) // what came before is reported
	before, err := db.activity(ctx)
	if err != nil {
		return dbActivity{}, err
	}
	start := time.Now()
	if err := fn(); err != nil {
		return dbActivity{}, err
	}
	time.Sleep(statsDelay)
	busyWindow := time.Since(start)
	busy, err := db.activity(ctx)
	if err != nil {
		return dbActivity{}, err
	}
	time.Sleep(busyWindow)
	idle, err := db.activity(ctx)
	return busy.minus(before).minus(idle.minus(busy)), err
}
