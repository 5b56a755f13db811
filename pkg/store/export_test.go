package store

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The raw tables, for this package's own tests only: everything else goes
// through In or System.

func (db *DB) Agents() agentTable              { return db.agents() }
func (db *DB) Bindings() bindingTable          { return db.bindings() }
func (db *DB) Sandboxes() sandboxTable         { return db.sandboxes() }
func (db *DB) Tokens() tokenTable              { return db.tokens() }
func (db *DB) Workspaces() workspaceTable      { return db.workspaces() }
func (db *DB) Audit() auditTable               { return db.audit() }
func (db *DB) Idempotency() idempotencyTable   { return db.idempotency() }
func (db *DB) RateWindows() rateTable          { return db.rateWindows() }
func (db *DB) Threads() threadTable            { return db.threads() }
func (db *DB) Runs() runTable                  { return db.runs() }
func (db *DB) Approvals() approvalTable        { return db.approvals() }
func (db *DB) Instances() instanceTable        { return db.instances() }
func (db *DB) Kept() keptTable                 { return db.kept() }
func (db *DB) Pools() poolTable                { return db.pools() }
func (db *DB) Purge(ctx context.Context) error { return db.System("test").Purge(ctx) }

// SetLeaseTerm shortens the jobs' leases, for tests of their running out.
func (db *DB) SetLeaseTerm(d time.Duration) { db.leaseTerm = d }

// RetrySafe, PgError and BrokenConn reach the killed-connection sorting.
func RetrySafe(err error, query string) bool { return retrySafe(err, query) }
func PgError(code string) error              { return &pgconn.PgError{Code: code} }
func BrokenConn() error                      { return fmt.Errorf("read: %w", io.ErrUnexpectedEOF) }

// ExecForTest runs a statement on the database, for tests that must
// change what the store never changes.
func (db *DB) ExecForTest(ctx context.Context, sql string) error { return db.conn(ctx).Exec(sql).Error }

// Waiting tells how many wait in line for a connection.
func (db *DB) Waiting() int {
	db.line.mu.Lock()
	defer db.line.mu.Unlock()
	return len(db.line.waiting)
}

// TransactionStarts reads transaction_timestamp() in each of n statements
// read together (readAll), in ctx's transaction or else on the pool.
func (db *DB) TransactionStarts(ctx context.Context, n int) ([]time.Time, error) {
	starts := make([]time.Time, n)
	reads := make([]read, n)
	for i := range reads {
		reads[i] = read{"SELECT transaction_timestamp()", nil, func(scan func(...any) error) error { return scan(&starts[i]) }}
	}
	return starts, db.readAll(ctx, reads...)
}

// StoreExec and StoreCount send a statement as the store sends its own
// (exec, findRows): StoreCount reads a single count.
func (db *DB) StoreExec(ctx context.Context, query string, args ...any) (int64, error) {
	return db.exec(ctx, query, args...)
}

func (db *DB) StoreCount(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := db.eachRow(ctx, query, args, func(scan func(...any) error) error { return scan(&n) })
	return n, err
}

// Prepared tells whether the embedded database keeps query prepared, once
// the preparations under way have ended.
func (db *DB) Prepared(query string) bool {
	db.prepared.running.Wait()
	db.prepared.mu.Lock()
	defer db.prepared.mu.Unlock()
	return db.prepared.stmts[query] != nil
}

// ConnectionsInUse tells how many of the pool's connections are taken.
func (db *DB) ConnectionsInUse() int {
	pool, err := db.gorm.DB()
	if err != nil {
		return -1
	}
	return pool.Stats().InUse
}

// PartialIndexStatements are, by the partial index each must use, the
// statements (or the conditions of those GORM writes) that look for rows
// by it, as Postgres is sent them, each with how many arguments it takes.
func PartialIndexStatements() map[string]map[string]int {
	out := map[string]map[string]int{"runs_active": {}, "approvals_pending": {}}
	for _, query := range []string{endActiveRunSQL, replaceActiveRunSQL, replaceActiveOnInstanceSQL} {
		out["runs_active"][numbered(query)] = strings.Count(query, "?")
	}
	out["approvals_pending"][numbered("SELECT * FROM approvals WHERE "+pendingCallSQL)] = strings.Count(pendingCallSQL, "?")
	return out
}

// Pending tells how many views and records of run starts wait for a batch.
func (db *DB) Pending() (views, records int) {
	return db.views.counts(func(t *together) int { return len(t.pending) }),
		db.records.counts(func(t *together) int { return len(t.pending) })
}

// Batches tells how many batches of views and records of run starts were sent.
func (db *DB) Batches() (views, records int) {
	return db.views.counts(func(t *together) int { return t.batches }),
		db.records.counts(func(t *together) int { return t.batches })
}

func (t *together) counts(of func(*together) int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return of(t)
}
