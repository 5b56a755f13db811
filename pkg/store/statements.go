package store

import (
	"sync/atomic"

	"gorm.io/gorm"
)

// CountStatements counts every statement this handle sends to the
// database from now on (each one round trip), for the benchmarks that show
// what a path costs the database. What triggers do runs inside the
// statement that fired them and counts nothing. Call it once per handle.
func (db *DB) CountStatements() *atomic.Int64 {
	n := new(atomic.Int64)
	db.counted.Store(n) // the statements the store sends without GORM
	count := func(*gorm.DB) { n.Add(1) }
	cb := db.gorm.Callback()
	_ = cb.Create().After("gorm:create").Register("auxilia:count_statements", count)
	_ = cb.Query().After("gorm:query").Register("auxilia:count_statements", count)
	_ = cb.Update().After("gorm:update").Register("auxilia:count_statements", count)
	_ = cb.Delete().After("gorm:delete").Register("auxilia:count_statements", count)
	_ = cb.Row().After("gorm:row").Register("auxilia:count_statements", count)
	_ = cb.Raw().After("gorm:raw").Register("auxilia:count_statements", count)
	return n
}

// count notes one statement sent without GORM.
func (db *DB) count() {
	if n := db.counted.Load(); n != nil {
		n.Add(1)
	}
}
