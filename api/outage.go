package api

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/store"
)

// outageRetryAfter is when a request refused by a database outage may be
// tried again: a restart or a failover takes about that.
const outageRetryAfter = 5 * time.Second

// outageError words a database outage for the client, or is nil for any
// other failure: 503 with Retry-After while the database cannot be used,
// 507 while its disk is full.
func outageError(err error) *auxilia.Error {
	switch store.Outage(err) {
	case store.ErrDiskFull:
		return auxilia.Errorf(auxilia.CodeDiskFull, "The database's disk is full: nothing can be saved until space is freed.")
	case store.ErrUnavailable:
		e := auxilia.Errorf(auxilia.CodeUnavailable, "The database is not available: try again shortly.")
		e.RetryAfter = outageRetryAfter
		return e
	}
	return nil
}
