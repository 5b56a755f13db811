package run

import (
	"context"
	"errors"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// A warm start records its run while its reconnect is in flight, rather
// than after it: the transaction that records it (the thread's row locked
// and its start noted, its active run ended, the run and its audit entry
// inserted) is made up to its commit, which waits for the reconnect's
// outcome. The instance answered: it commits, and the start answers one
// commit after the provider did. It did not (gone, failing): it rolls
// back, as if never begun, and the start goes on as it would have.
//
// The transaction holds a connection for the provider's round trip, so a
// start records ahead only while the store has connections to spare
// (Deps.SpareConnections), and only a running instance's reconnect, which
// is quick (a paused one's resume may take minutes). Under a burst, the
// starts record after their reconnects, each holding a connection only for
// its own statements. What the transaction locks, the reconnect does not
// write: it writes the instance's row (its state) and the sandbox's health,
// which the run's row references but does not lock against such updates.

// errNotRecorded rolls back a run recorded ahead of a reconnect that failed.
var errNotRecorded = errors.New("run: the reconnect failed; the run recorded ahead is rolled back")

// recordAhead is a run recorded up to its commit, waiting for its verdict.
type recordAhead struct {
	verdict chan bool  // true: commit
	done    chan error // the transaction's outcome
	out     auxilia.Run
	settled bool
}

// recordAhead begins recording run, a warm start of the agent's, unless
// the store has no connection to spare (nil then: the run is recorded
// after). Every recordAhead is settled: committed or abandoned.
func (s *Service) recordAhead(ctx context.Context, agent auxilia.Agent, run auxilia.Run) *recordAhead {
	if s.SpareConnections == nil || !s.SpareConnections() {
		return nil
	}
	r := &recordAhead{verdict: make(chan bool, 1), done: make(chan error, 1)}
	go func() {
		r.done <- s.Tx.InTx(ctx, func(ctx context.Context) error {
			out, err := s.record(ctx, agent, run)
			if err != nil {
				return err
			}
			if !<-r.verdict {
				return errNotRecorded
			}
			r.out = out
			return nil
		})
	}()
	return r
}

// commit ends the recording and returns the run; false when it was not
// recorded (a failure of its own, a thread changed meanwhile, abandoned
// already), which the start then records after, as without it.
func (r *recordAhead) commit() (auxilia.Run, bool) {
	if r.settled {
		return auxilia.Run{}, false
	}
	r.settled = true
	r.verdict <- true
	if err := <-r.done; err != nil {
		return auxilia.Run{}, false
	}
	return r.out, true
}

// abandon rolls the recording back and waits until it has; a settled or
// nil one is left alone.
func (r *recordAhead) abandon() {
	if r == nil || r.settled {
		return
	}
	r.settled = true
	r.verdict <- false
	<-r.done
}
