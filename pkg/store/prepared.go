package store

import (
	"context"
	"database/sql"
	"sync"

	"gorm.io/gorm"
)

// prepared keeps the embedded database's statements compiled: those the
// store sends itself (exec, findRows), a fixed set of texts. SQLite
// compiles a statement that is not prepared each time it runs it, and the
// triggers it fires with it: compiling a pool's claim, which fires the
// usage triggers, costs several times what running it does. Postgres needs
// none of this: pgx keeps each connection's statements prepared itself.
//
// A text met for the first time runs as it is while it is prepared beside
// it, on a connection of the pool once one is free. A transaction never
// waits for that second connection, which the others, waiting for its
// lock, may all be holding.
type prepared struct {
	pool    *sql.DB
	mu      sync.Mutex
	stmts   map[string]*sql.Stmt // nil: being prepared, or not preparable
	closed  bool
	running sync.WaitGroup
}

// preparedLimit bounds the texts kept prepared, in case the store's set of
// texts ever grows with its data: beyond it, a new text runs unprepared.
const preparedLimit = 512

func newPrepared(pool *sql.DB) *prepared {
	return &prepared{pool: pool, stmts: map[string]*sql.Stmt{}}
}

// on returns query's statement for handle (the pool, or a transaction on
// it), or false while it has none: not prepared yet, or not kept (a nil
// prepared keeps none).
func (p *prepared) on(ctx context.Context, handle gorm.ConnPool, query string) (*sql.Stmt, bool) {
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	stmt, met := p.stmts[query]
	if !met && !p.closed && len(p.stmts) < preparedLimit {
		p.stmts[query] = nil
		p.running.Go(func() { p.prepare(query) })
	}
	p.mu.Unlock()
	if stmt == nil {
		return nil, false
	}
	switch h := handle.(type) {
	case *sql.Tx:
		// Prepared on the transaction's connection once, then reused there.
		return h.StmtContext(ctx, stmt), true
	case *sql.DB:
		return stmt, true
	}
	return nil, false
}

// prepare prepares query for good; one that fails (its text is wrong, or
// the database is closing) stays unprepared and runs as it is.
func (p *prepared) prepare(query string) {
	stmt, err := p.pool.PrepareContext(context.Background(), query)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		return
	}
	if p.closed {
		_ = stmt.Close()
		return
	}
	p.stmts[query] = stmt
}

// close waits for the statements being prepared and closes them all.
func (p *prepared) close() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.running.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, stmt := range p.stmts {
		if stmt != nil {
			_ = stmt.Close()
		}
	}
}

// execOn runs a write in ctx's transaction, or on the pool: prepared where
// it is kept.
func (db *DB) execOn(ctx context.Context, query string, args []any) (sql.Result, error) {
	handle := db.handle(ctx)
	if stmt, ok := db.prepared.on(ctx, handle, query); ok {
		return stmt.ExecContext(ctx, args...)
	}
	return handle.ExecContext(ctx, db.placeholders(query), args...)
}

// queryOn runs a read in ctx's transaction, or on the pool: prepared where
// it is kept. Its rows must be closed before the transaction sends this
// same text again.
func (db *DB) queryOn(ctx context.Context, query string, args []any) (*sql.Rows, error) {
	handle := db.handle(ctx)
	if stmt, ok := db.prepared.on(ctx, handle, query); ok {
		return stmt.QueryContext(ctx, args...)
	}
	return handle.QueryContext(ctx, db.placeholders(query), args...)
}
