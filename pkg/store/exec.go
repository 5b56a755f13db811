package store

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"gorm.io/gorm"
)

// exec runs a write (? placeholders, plain values: no slice is expanded) in
// the transaction ctx carries, or else on the pool, and returns how many
// rows it changed. Like findRows for reads, it serves the statements every
// run start makes, where GORM's statement building and callbacks cost as
// much as the statement: what those callbacks do for every statement (the
// context's error, a full disk, the dialect's errors) it does itself.
func (db *DB) exec(ctx context.Context, query string, args ...any) (int64, error) {
	db.count()
	res, err := db.execOn(ctx, query, args)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	err = withContextError(ctx, db.translate(err))
	db.disk.note(err, true)
	return n, err
}

// write is one statement of a batch: a write with ? placeholders and plain values.
type write struct {
	query string
	args  []any
}

// execBatch sends writes to Postgres in one round trip, on a connection of
// the pool: they run in order, in one implicit transaction (all or none),
// each statement seeing what those before it committed, as in a
// transaction of its own. It returns how many rows each changed.
func (db *DB) execBatch(ctx context.Context, writes ...write) ([]int64, error) {
	p := &part{writes: writes}
	err := db.onPgx(ctx, func(c *pgx.Conn) error {
		for range writes {
			db.count()
		}
		return sendParts(ctx, c, []*part{p})
	})
	err = withContextError(ctx, db.translate(err))
	db.disk.note(err, true)
	return p.changed, err
}

// insertSQL is the INSERT of one row of table, its columns listed.
func insertSQL(table, columns string) string {
	marks := strings.Repeat("?, ", strings.Count(columns, ",")) + "?"
	return "INSERT INTO " + table + " (" + columns + ") VALUES (" + marks + ")"
}

// handle is the database/sql handle of the transaction ctx carries, or
// the pool's, under GORM.
func (db *DB) handle(ctx context.Context) gorm.ConnPool {
	if tx, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return tx.Statement.ConnPool
	}
	return db.gorm.ConnPool
}

// placeholders writes query's ? placeholders as the dialect takes them.
func (db *DB) placeholders(query string) string {
	if db.dialect == Postgres {
		return numbered(query)
	}
	return query
}

// translate gives a driver's error as GORM would (a duplicate key is
// gorm.ErrDuplicatedKey), for callers that test for it.
func (db *DB) translate(err error) error {
	if t, ok := db.gorm.Dialector.(gorm.ErrorTranslator); ok && err != nil {
		return t.Translate(err)
	}
	return err
}
