package store

import (
	"context"
	"strings"

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
	res, err := db.handle(ctx).ExecContext(ctx, db.placeholders(query), args...)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	err = withContextError(ctx, db.translate(err))
	db.disk.note(err, true)
	return n, err
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
