package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// DefaultLeaseTerm is how long a job's lease lasts without a renewal; its
// holder renews it three times a term.
const DefaultLeaseTerm = 30 * time.Second

// errLeaseLost ends a pass whose lease another replica holds now, or that
// could not be renewed before it ran out.
var errLeaseLost = errors.New("store: the job's lease was lost")

// withLease runs fn while this process holds the job's lease (Postgres): it
// takes the lease if no one holds it or its holder's ran out, renews it
// while fn runs, and gives it back when fn returns. fn's context ends as
// soon as the lease may have run out (by this process's clock, counted from
// before the database set it, so never after another replica could take
// it) or is found held by another: the pass starts nothing more.
func (db *DB) withLease(ctx context.Context, name string, fn func(ctx context.Context) error) (bool, error) {
	term := db.leaseTerm
	holder := auxilia.NewID()
	asked := time.Now()
	taken := db.gorm.WithContext(ctx).Exec(`INSERT INTO job_leases (name, holder, expires_at)
		VALUES (?, ?, clock_timestamp() + make_interval(secs => ?))
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
		WHERE job_leases.expires_at < clock_timestamp()`, name, holder, term.Seconds())
	if taken.Error != nil || taken.RowsAffected == 0 {
		return false, taken.Error
	}
	work, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		db.renewLease(work, stop, name, holder, asked.Add(term))
	}()
	err := fn(work)
	stop(nil)
	<-renewed
	if cause := context.Cause(work); errors.Is(cause, errLeaseLost) {
		err = errors.Join(cause, err) // said even when the pass ended well: it may have run beside another
	}
	release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = db.gorm.WithContext(release).Exec("DELETE FROM job_leases WHERE name = ? AND holder = ?", name, holder).Error
	return true, err
}

// renewLease renews the lease until work ends, and ends work once the
// lease is lost or may have run out unrenewed: the latter on a timer of its
// own, so a renewal that hangs (a database that stopped answering) cannot
// keep the pass running past it.
func (db *DB) renewLease(work context.Context, stop context.CancelCauseFunc, name, holder string, until time.Time) {
	term := db.leaseTerm
	expire := time.AfterFunc(time.Until(until), func() {
		stop(fmt.Errorf("%w: not renewed within %s", errLeaseLost, term))
	})
	defer expire.Stop()
	tick := time.NewTicker(term / 3)
	defer tick.Stop()
	for {
		select {
		case <-work.Done():
			return
		case <-tick.C:
		}
		asked := time.Now()
		ctx, cancel := context.WithTimeout(work, term/3)
		res := db.gorm.WithContext(ctx).Exec(`UPDATE job_leases SET expires_at = clock_timestamp() + make_interval(secs => ?)
			WHERE name = ? AND holder = ? AND expires_at > clock_timestamp()`, term.Seconds(), name, holder)
		cancel()
		switch {
		case work.Err() != nil:
			return
		case res.Error != nil:
			continue // the database did not answer: tried again, until the lease runs out
		case res.RowsAffected == 0:
			stop(fmt.Errorf("%w: held by another replica", errLeaseLost))
			return
		}
		expire.Reset(time.Until(asked.Add(term)))
	}
}
