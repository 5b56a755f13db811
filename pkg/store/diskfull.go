package store

import (
	"errors"
	"sync/atomic"

	"gorm.io/gorm"
)

// diskWatch remembers that the database's disk is full: from a statement
// that failed for it until a write succeeds, for readiness to say so.
type diskWatch struct{ full atomic.Bool }

// note records a statement's outcome; wrote says it was a write.
func (w *diskWatch) note(err error, wrote bool) {
	switch {
	case err != nil && errors.Is(Outage(err), ErrDiskFull):
		w.full.Store(true)
	case err == nil && wrote:
		w.full.Store(false)
	}
}

// watchDisk registers the callbacks that keep w up to date.
func watchDisk(g *gorm.DB, w *diskWatch) error {
	write := func(tx *gorm.DB) { w.note(tx.Error, true) }
	read := func(tx *gorm.DB) { w.note(tx.Error, false) }
	cb := g.Callback()
	return errors.Join(
		cb.Create().After("*").Register("auxilia:disk_full", write),
		cb.Update().After("*").Register("auxilia:disk_full", write),
		cb.Delete().After("*").Register("auxilia:disk_full", write),
		cb.Raw().After("*").Register("auxilia:disk_full", read),
		cb.Row().After("*").Register("auxilia:disk_full", read),
	)
}

// DiskFull reports whether the database's disk was full at its last write:
// writes fail until space is freed, and the first that succeeds clears it.
func (db *DB) DiskFull() bool { return db.disk.full.Load() }
