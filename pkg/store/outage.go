package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// The database faults an operator must see to, as Outage sorts them.
var (
	// ErrUnavailable: the database cannot be reached or used for now (it is
	// stopped or restarting, its connection was cut, its slots are taken,
	// it stayed locked beyond the wait). Trying again later may succeed.
	ErrUnavailable = errors.New("the database is not available")
	// ErrDiskFull: the embedded database's disk is full; writes fail until
	// space is freed.
	ErrDiskFull = errors.New("the database's disk is full")
)

// Outage sorts a database failure: ErrUnavailable, ErrDiskFull, or nil for
// any other failure (a bad statement, a broken row) and for a caller who
// gave up. It is the one place that knows the drivers' words for these.
func Outage(err error) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil
	case errors.Is(err, ErrUnavailable), errors.Is(err, ErrDiskFull):
		return err
	}
	if code, ok := sqliteCode(err); ok {
		return sqliteOutage(code)
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return postgresOutage(pe.Code)
	}
	var ce *pgconn.ConnectError
	switch {
	case errors.As(err, &ce), errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return ErrUnavailable
	}
	return nil
}

// postgresOutage sorts Postgres's SQLSTATEs: connection exceptions (08),
// too many connections (53300), out of disk space (53100), the server
// shutting down or not yet up (57P01-57P03).
func postgresOutage(code string) error {
	switch {
	case code == "53100":
		return ErrDiskFull
	case strings.HasPrefix(code, "08"), code == "53300", code == "57P01", code == "57P02", code == "57P03":
		return ErrUnavailable
	}
	return nil
}

// SQLite's primary result codes that are faults of the moment.
const (
	sqliteBusy    = 5  // SQLITE_BUSY: still locked after the busy timeout
	sqliteLocked  = 6  // SQLITE_LOCKED
	sqliteIOErr   = 10 // SQLITE_IOERR
	sqliteFull    = 13 // SQLITE_FULL
	sqliteCantOpn = 14 // SQLITE_CANTOPEN
)

func sqliteOutage(code int) error {
	switch code & 0xff { // the primary code, without its extended part
	case sqliteFull:
		return ErrDiskFull
	case sqliteBusy, sqliteLocked, sqliteIOErr, sqliteCantOpn:
		return ErrUnavailable
	}
	return nil
}

// sqliteCode is the result code of the embedded driver's error.
func sqliteCode(err error) (int, bool) {
	var coded interface {
		error
		Code() int
	}
	if errors.As(err, &coded) {
		return coded.Code(), true
	}
	return 0, false
}
