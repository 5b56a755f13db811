package run

import "context"

// A turn is a run start's place among the starts that read and choose at
// once (Options.ChoosingAtOnce). A start whose thread has no live, running
// instance takes its turn as it begins, before it reads its agent, and
// gives it back as its first step that waits on something other than the
// database begins: a provider call, or another run's creation. A burst of
// new threads is thus served in the order it came: the first ones read,
// choose (taking a pool's instances) and reach their provider without
// sharing the database and the processors with the reads of all those
// behind them. A warm start takes no turn: it reconnects its instance
// without a choice. A start that must choose again (its instance was gone,
// another run's creation ended) takes a new turn, at the back.
type turn struct {
	q    *queue
	held bool
}

// take waits for the turn, unless it is held already.
func (t *turn) take(ctx context.Context) error {
	if t.held {
		return nil
	}
	if err := t.q.enter(ctx); err != nil {
		return err
	}
	t.held = true
	return nil
}

// give gives the turn back, if it is held.
func (t *turn) give() {
	if t.held {
		t.held = false
		t.q.leave()
	}
}
