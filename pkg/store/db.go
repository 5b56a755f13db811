// Package store keeps Auxilia's state in Postgres or in an embedded SQLite
// file through GORM. It is the only package that speaks SQL.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/libtnb/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Dialect names the database engine behind a DB.
type Dialect string

// Supported engines.
const (
	Postgres Dialect = "postgres"
	SQLite   Dialect = "sqlite"
)

// SQLiteFile is the embedded database's file name inside the data folder.
const SQLiteFile = "auxilia.db"

// DB is a handle on the database. It is safe for concurrent use.
type DB struct {
	gorm         *gorm.DB
	dialect      Dialect
	sandboxCheck auxilia.SandboxCheck
	localLocks   namedLocks
	disk         *diskWatch
	leaseTerm    time.Duration // how long a job's lease lasts unrenewed
	// quotaDefaults are the limits of a workspace the operator set none
	// of its own for (AUXILIA_QUOTA_*).
	quotaDefaults auxilia.Quotas
	// alertWebhook tells that alerts are delivered to a webhook.
	alertWebhook bool
	// counted counts statements once CountStatements is called.
	counted atomic.Pointer[atomic.Int64]
	// line orders the statements waiting for a Postgres connection
	// (inline.go); nil on the embedded database. It has a place for each
	// connection (conns), or for each statement run at once (atOnce),
	// whichever is fewer.
	line          *line
	conns, atOnce int
	// prepared keeps the embedded database's statements compiled
	// (prepared.go); nil on Postgres.
	prepared *prepared
	// views and records send the views and the records of run starts
	// together (together.go).
	views, records *together
}

// SetQuotaDefaults sets the limits of every workspace that has none of its
// own; call it before the store is used.
func (db *DB) SetQuotaDefaults(q auxilia.Quotas) { db.quotaDefaults = q }

// Open connects to url: a postgres:// (or postgresql://) URL selects Postgres;
// an empty url selects the embedded SQLite file in dataDir.
func Open(ctx context.Context, url, dataDir string) (*DB, error) {
	cfg := &gorm.Config{
		TranslateError:         true,
		SkipDefaultTransaction: true,
		Logger:                 logger.Discard,
		NowFunc:                Now,
	}
	var (
		g       *gorm.DB
		dialect Dialect
		waits   *line
		err     error
	)
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		dialect = Postgres
		var pgCfg *pgx.ConnConfig
		if pgCfg, err = pgx.ParseConfig(url); err != nil {
			return nil, fmt.Errorf("open %s database: %w", dialect, err)
		}
		waits = &line{}
		g, err = gorm.Open(postgres.New(postgres.Config{Conn: inLine{pool: retryKilled{stdlib.OpenDB(*pgCfg)}, line: waits}}), cfg)
	case url == "":
		dialect = SQLite
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("create data folder: %w", err)
		}
		g, err = gorm.Open(sqlite.Open(SQLiteDSN(filepath.Join(dataDir, SQLiteFile))), cfg)
	default:
		return nil, errors.New("DATABASE_URL must be a postgres:// URL, or unset for the embedded database")
	}
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	disk := &diskWatch{}
	if err := errors.Join(reportContextErrors(g), watchDisk(g, disk)); err != nil {
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	db := &DB{gorm: g, dialect: dialect, disk: disk, leaseTerm: DefaultLeaseTerm, line: waits, atOnce: DefaultStatementsAtOnce()}
	db.views, db.records = &together{db: db}, &together{db: db}
	if pool, ok := g.ConnPool.(*sql.DB); ok && dialect == SQLite {
		db.prepared = newPrepared(pool)
	}
	db.LimitConnections(DefaultMaxConnections)
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("reach %s database: %w", dialect, err)
	}
	return db, nil
}

// SQLiteDSN is the connection string for the embedded file: WAL for concurrent
// readers, a busy timeout instead of immediate "database is locked" errors,
// foreign keys on, and transactions that take the write lock when they begin
// (so two of them never deadlock upgrading from read to write). Times are
// written as the file has always held them ("2006-01-02 15:04:05.999999999-07:00"),
// and read back as times only from columns declared as times.
func SQLiteDSN(path string) string {
	// In a file: URI, "?" starts the options and "#" a fragment: escape them (and "%") in the path.
	path = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	return "file:" + path + "?_pragma=busy_timeout(15000)&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate" +
		"&_time_format=sqlite&_texttotime=0&_inttotime=0"
}

// DefaultMaxConnections bounds a process's connections: several replicas
// must fit in Postgres's own limit (100 by default).
const DefaultMaxConnections = 20

// DefaultStatementsAtOnce is how many statements, and transactions, a
// process runs on Postgres at once unless told otherwise: twice the
// processors it may use, and one more. That is as many as a database with
// as many processors serves without its statements slowing each other
// down; past it, a burst's statements only share the database's
// processors, each taking longer, and those of the first requests finish
// no sooner than those of the last. The others wait in line instead,
// oldest request first, holding nothing. A statement holds its place for
// its whole round trip, its wait for this process's processors included,
// so where a burst keeps them busy too, a line with a place for every
// connection gets a long burst of equal requests through sooner, and this
// one serves the burst's first requests first (the bench measures both).
func DefaultStatementsAtOnce() int { return 2*runtime.GOMAXPROCS(0) + 1 }

// LimitConnections bounds the pool: at most n connections, as many kept
// idle, and no more places in line for them.
func (db *DB) LimitConnections(n int) {
	if sqlDB, err := db.gorm.DB(); err == nil {
		sqlDB.SetMaxOpenConns(n)
		sqlDB.SetMaxIdleConns(n)
	}
	db.conns = n
	db.resizeLine()
}

// LimitStatementsAtOnce bounds the statements, and transactions, run on
// Postgres at once: the line has no more places than n, nor than
// connections. 0 leaves only the connections' bound.
func (db *DB) LimitStatementsAtOnce(n int) {
	db.atOnce = n
	db.resizeLine()
}

// resizeLine gives the line a place for each connection, or for each
// statement run at once, whichever is fewer.
func (db *DB) resizeLine() {
	if db.line == nil {
		return
	}
	places := db.conns
	if db.atOnce > 0 && (places <= 0 || db.atOnce < places) {
		places = db.atOnce
	}
	db.line.resize(places)
}

// Dialect tells which engine this is.
func (db *DB) Dialect() Dialect { return db.dialect }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	sqlDB, err := db.gorm.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// Close releases every connection.
func (db *DB) Close() error {
	sqlDB, err := db.gorm.DB()
	if err != nil {
		return err
	}
	db.prepared.close()
	return sqlDB.Close()
}

type txKey struct{}

// InTx runs fn in a transaction: every store call made with the context fn
// receives joins it. Nested calls join the outer transaction.
func (db *DB) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return fn(ctx)
	}
	held, err := db.line.enter(ctx)
	if err != nil {
		return err
	}
	if held {
		defer db.line.leave()
	}
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
	if cause := ctx.Err(); err != nil && cause != nil && !errors.Is(err, cause) {
		err = fmt.Errorf("%w: %w", cause, err) // a begin or commit its context ended (see reportContextErrors)
	}
	db.disk.note(err, false) // a commit that found the disk full
	return err
}

// conn returns the transaction ctx carries, or the pool.
func (db *DB) conn(ctx context.Context) *gorm.DB {
	if tx, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return tx
	}
	return db.gorm.WithContext(ctx)
}

// Lock takes a lock named name for the rest of ctx's transaction, so that
// concurrent transactions doing the same work run one after the other, in
// this process and in every other one on the same database.
func (db *DB) Lock(ctx context.Context, name string) error {
	if _, ok := ctx.Value(txKey{}).(*gorm.DB); !ok {
		return errors.New("store: Lock outside a transaction")
	}
	if db.dialect == SQLite {
		return nil // SQLite transactions begin with the database's write lock.
	}
	return db.conn(ctx).Exec("SELECT pg_advisory_xact_lock(hashtext(?))", name).Error
}

// Now is the store's clock: UTC, at the microsecond precision both engines keep.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// SQL returns the database/sql handle under the store, for tools that must
// look at raw rows (tests that prove secrets are sealed, benchmarks).
func (db *DB) SQL() (*sql.DB, error) { return db.gorm.DB() }

// WithTryLock runs fn if no other process holds the lock named name, and
// reports whether it ran. On Postgres the lock is a lease in the database
// (see withLease), renewed while fn runs: a connection that dies does not
// hand it to another replica while fn runs on, and fn's context ends once
// this process may have lost it. The embedded database serves one process,
// where a mutex does.
func (db *DB) WithTryLock(ctx context.Context, name string, fn func(ctx context.Context) error) (bool, error) {
	if db.dialect == SQLite {
		if !db.localLocks.TryLock(name) {
			return false, nil
		}
		defer db.localLocks.Unlock(name)
		return true, fn(ctx)
	}
	return db.withLease(ctx, name, fn)
}

// namedLocks are try-locks by name, for one process.
type namedLocks struct {
	mu   sync.Mutex
	held map[string]bool
}

func (l *namedLocks) TryLock(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[string]bool{}
	}
	if l.held[name] {
		return false
	}
	l.held[name] = true
	return true
}

func (l *namedLocks) Unlock(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, name)
}

// Purge forgets what nothing needs any more: idempotency answers past their
// time, old rate-limit windows, and deleted sandboxes (with their sealed secrets) whose instances
// are all destroyed.
func (s System) Purge(ctx context.Context) error {
	db := s.db
	if _, err := db.idempotency().Purge(ctx, time.Now().Add(-auxilia.IdempotencyTTL)); err != nil {
		return err
	}
	if err := db.rateWindows().Purge(ctx, time.Now().Add(-time.Hour)); err != nil {
		return err
	}
	_, err := db.sandboxes().PurgeDeleted(ctx)
	return err
}
