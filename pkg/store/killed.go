package store

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// killedTries bounds how many connections one statement is tried on while
// each it gets was killed (Postgres restarted under an idle pool kills them all).
const killedTries = 3

// retryKilled is the Postgres pool as the store's GORM uses it: a statement
// or a transaction's BEGIN that fails because its pooled connection was
// killed (an operator's pg_terminate_backend, a restart, a proxy that cut
// it) is tried again on another, where that is safe. database/sql does so
// only for the driver's ErrBadConn, which the driver gives only when
// nothing was sent; a terminated backend answers the first statement with
// its FATAL instead.
type retryKilled struct{ db *sql.DB }

// GetDBConn is the database/sql pool under it.
func (p retryKilled) GetDBConn() (*sql.DB, error) { return p.db, nil }

func (p retryKilled) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.db.PrepareContext(ctx, query)
}

func (p retryKilled) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := p.db.ExecContext(ctx, query, args...)
	for try := 1; try < killedTries && retrySafe(err, query); try++ {
		res, err = p.db.ExecContext(ctx, query, args...)
	}
	return res, err
}

func (p retryKilled) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	rows, err := p.db.QueryContext(ctx, query, args...)
	for try := 1; try < killedTries && retrySafe(err, query); try++ {
		rows, err = p.db.QueryContext(ctx, query, args...)
	}
	return rows, err
}

// QueryRowContext is not tried again: its error comes only with the scan.
func (p retryKilled) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.db.QueryRowContext(ctx, query, args...)
}

// BeginTx begins a transaction; nothing is done yet, so a killed
// connection's failure is always safe to try again.
func (p retryKilled) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	tx, err := p.db.BeginTx(ctx, opts)
	for try := 1; try < killedTries && killedConnection(err) != noKill; try++ {
		tx, err = p.db.BeginTx(ctx, opts)
	}
	return tx, err
}

// notDone tells whether a write that failed with err did nothing: it was
// not sent at all, or its backend said it was terminated.
func notDone(err error) bool {
	return err != nil && (pgconn.SafeToRetry(err) || killedConnection(err) == terminated)
}

// retrySafe tells whether a statement that failed with err may run again:
// its backend said it was terminated (what it was doing was rolled back),
// or its connection broke and the statement only reads.
func retrySafe(err error, query string) bool {
	switch killedConnection(err) {
	case terminated:
		return true
	case broken:
		return readOnly(query)
	}
	return false
}

type kill int

const (
	noKill     kill = iota
	terminated      // the backend said it was terminated: nothing was done
	broken          // the connection broke: what was sent may have been done
)

// killedConnection sorts an error: a backend terminated by an
// administrator or a crash (57P01, 57P02), a connection broken under the
// statement, or neither.
func killedConnection(err error) kill {
	if err == nil {
		return noKill
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		if pe.Code == "57P01" || pe.Code == "57P02" {
			return terminated
		}
		return noKill
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return broken
	}
	return noKill
}

// readOnly tells whether a statement only reads: a plain SELECT (not one
// that locks rows, and not one that writes through a function of ours: the
// store's SELECTs of functions are locks).
func readOnly(query string) bool {
	q := strings.ToUpper(strings.TrimSpace(query))
	return strings.HasPrefix(q, "SELECT") && !strings.Contains(q, " FOR UPDATE") && !strings.Contains(q, " FOR SHARE") &&
		!strings.Contains(q, "PG_ADVISORY") && !strings.Contains(q, "NEXTVAL")
}
