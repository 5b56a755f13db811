package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"gorm.io/gorm"
)

// scannable is a row type that lists its own columns and scan targets, in
// the same order.
type scannable[R any] interface {
	*R
	// scanTargets are pointers to the row's fields, one per column of its
	// columns list.
	scanTargets() []any
}

// findRows runs query (a SELECT of the row's columns, with ? placeholders)
// and scans each row straight into the row's fields. It serves the routes
// read most (every request's token, the sandboxes' list and view), where
// GORM's statement building and reflective scan, and database/sql's rows,
// cost more than the rest of the request: outside a transaction on
// Postgres the query goes through pgx itself, on a connection of the pool.
func findRows[R any, P scannable[R]](ctx context.Context, db *DB, query string, args ...any) ([]R, error) {
	var out []R
	err := db.eachRow(ctx, query, args, func(scan func(dest ...any) error) error {
		var r R
		if err := scan(P(&r).scanTargets()...); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, withContextError(ctx, err)
}

// takeRow is findRows for a query of one row (its SQL ends with LIMIT 1):
// gorm.ErrRecordNotFound when there is none.
func takeRow[R any, P scannable[R]](ctx context.Context, db *DB, query string, args ...any) (R, error) {
	rows, err := findRows[R, P](ctx, db, query, args...)
	switch {
	case err != nil:
		var zero R
		return zero, err
	case len(rows) == 0:
		var zero R
		return zero, gorm.ErrRecordNotFound
	}
	return rows[0], nil
}

// qualified names each of columns (a list that findRows scans) with its table.
func qualified(table, columns string) string {
	return table + "." + strings.ReplaceAll(columns, ", ", ", "+table+".")
}

// eachRow runs query and calls each with every row's scan. Its args are
// plain values: GORM does not expand a slice into a list here.
func (db *DB) eachRow(ctx context.Context, query string, args []any, each func(scan func(dest ...any) error) error) error {
	return db.readAll(ctx, read{query, args, each})
}

// read is a query (? placeholders, plain values) whose rows are each given
// to each. Each only scans: it sends nothing while the rows are open.
type read struct {
	query string
	args  []any
	each  func(scan func(dest ...any) error) error
}

// readAll runs reads, in order: on Postgres outside a transaction, through
// pgx in one round trip; else one after the other in ctx's transaction, or
// on the pool.
func (db *DB) readAll(ctx context.Context, reads ...read) error {
	for range reads {
		db.count()
	}
	if !db.batches(ctx) {
		for _, r := range reads {
			if err := db.readOnHandle(ctx, r); err != nil {
				return err
			}
		}
		return nil
	}
	// As database/sql does, reads that could not be sent at all are
	// tried again on another connection.
	for attempt := 1; ; attempt++ {
		err := db.onPgx(ctx, func(c *pgx.Conn) error { return readThrough(ctx, c, reads) })
		if attempt == 3 || !pgconn.SafeToRetry(err) {
			return err
		}
	}
}

// batches tells whether readAll sends its reads in ctx as one batch, a
// round trip: on Postgres, outside a transaction.
func (db *DB) batches(ctx context.Context) bool {
	_, inTx := ctx.Value(txKey{}).(*gorm.DB)
	return !inTx && db.dialect == Postgres
}

// readOnHandle runs r on database/sql: in ctx's transaction, or on the pool.
func (db *DB) readOnHandle(ctx context.Context, r read) error {
	rows, err := db.queryOn(ctx, r.query, r.args)
	db.disk.note(err, false)
	if err != nil {
		return db.translate(err)
	}
	defer rows.Close()
	return scanEach(rows, r.each)
}

// readThrough runs reads on c: one alone, or several as one batch.
func readThrough(ctx context.Context, c *pgx.Conn, reads []read) error {
	if len(reads) == 1 {
		rows, err := c.Query(ctx, numbered(reads[0].query), reads[0].args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		return scanEach(rows, reads[0].each)
	}
	return sendParts(ctx, c, []*part{{reads: reads}})
}

// onPgx runs fn on a connection of the pool, through pgx itself, once the
// line (inline.go) gives the caller its place.
func (db *DB) onPgx(ctx context.Context, fn func(c *pgx.Conn) error) error {
	pool, err := db.gorm.DB()
	if err != nil {
		return err
	}
	held, err := db.line.enter(ctx)
	if err != nil {
		return err
	}
	if held {
		defer db.line.leave()
	}
	conn, err := pool.Conn(ctx)
	if err != nil {
		return withContextError(ctx, err)
	}
	defer conn.Close()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("store: a Postgres connection of type %T", driverConn)
		}
		// Work that breaks the connection leaves it closed, and
		// database/sql drops a closed one when it takes it back.
		return fn(c.Conn())
	})
}

// rows are database/sql's and pgx's alike.
type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanEach calls each with every row's scan, then reports the rows' error.
func scanEach(r rows, each func(scan func(dest ...any) error) error) error {
	for r.Next() {
		if err := each(r.Scan); err != nil {
			return err
		}
	}
	return r.Err()
}

// numberedQueries caches numbered's answers: the store's queries are a
// fixed set of texts.
var numberedQueries sync.Map

// numbered rewrites the ? placeholders of query as Postgres's $1, $2, …
// (the store's SQL has no ? in its literals).
func numbered(query string) string {
	if q, ok := numberedQueries.Load(query); ok {
		return q.(string)
	}
	var b strings.Builder
	n := 0
	for i := range len(query) {
		if query[i] != '?' {
			b.WriteByte(query[i])
			continue
		}
		n++
		b.WriteString("$" + strconv.Itoa(n))
	}
	numberedQueries.Store(query, b.String())
	return b.String()
}

// withContextError reports a failure after the context ended as the
// context's error, as the GORM callbacks do for its own statements.
func withContextError(ctx context.Context, err error) error {
	if cause := ctx.Err(); err != nil && cause != nil && !errors.Is(err, cause) {
		return fmt.Errorf("%w: %w", cause, err)
	}
	return err
}
