package run

import "context"

// A turn is a run start's place among the starts that read and choose at
// once (Options.ChoosingAtOnce). A start whose thread has no live, running
// instance takes its turn once its first look (one round trip) is read,
// and gives it back as its first step that waits on something other than
// the database begins: a provider call, or another run's creation. A
// burst of new threads is thus served in the order it came: the first ones
// choose (taking a pool's instances) and reach their provider without
// sharing the database and the processors with the choices of all those
// behind them, which read their agents again when their turns come. A
// warm start takes no turn: it reconnects its instance without a choice;
// nor does a new thread's start that claimed a pool's instance ahead of
// any choice (claimAhead, in pool.go).
// A start that must choose again (its instance was gone, another run's
// creation ended) takes a new turn, at the back.
type turn struct {
	q    *queue
	held bool
}

// take waits for the turn, unless it is held already. waited tells
// whether the start had to wait for it: what it read before may have
// changed meanwhile.
func (t *turn) take(ctx context.Context) (waited bool, err error) {
	if t.held {
		return false, nil
	}
	if waited, err = t.q.enter(ctx); err != nil {
		return waited, err
	}
	t.held = true
	return waited, nil
}

// give gives the turn back, if it is held.
func (t *turn) give() {
	if t.held {
		t.held = false
		t.q.leave()
	}
}
