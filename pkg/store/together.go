package store

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/jackc/pgx/v5"
)

// Run starts recorded at once on their threads' instances share their
// round trips to Postgres. Their writes go together in one batch, one
// implicit transaction, so that a burst of starts takes one place in line
// (inline.go), one connection and one commit for many of them, not one
// each. Each start is answered only once the commit that holds its record
// is in, as before: nothing is written after its answer.
//
// One batch is in flight at a time. Records that come meanwhile wait for
// the next, which their writer sends once the batch ends and it has a place
// in line, taken as old as the oldest of them: a start alone waits for no
// other. A batch locks its threads' rows in the order of their ids, so
// that two batches, of this server or another, never wait for each other
// in turn. A batch that fails is undone whole, and each of its records is
// then sent again alone, so that one record's failure is its own.
//
// A start whose request ends leaves at once with its context's error: its
// record is dropped if it still waits, and may be written if its batch has
// it. A batch goes on for the starts that still wait for it, and is given
// up once none does.

// maxTogether bounds the records of a batch, so that its transaction
// holds no more rows than a few milliseconds' worth.
const maxTogether = 64

// together sends records of run starts in batches, as above.
type together struct {
	db *DB

	mu      sync.Mutex
	pending []*record // oldest first
	writing bool      // a writer runs
	// waiting counts the records whose starts wait for them, pending or in
	// the batch in flight; cancel gives up the writer's batch once none
	// does.
	waiting int
	cancel  context.CancelFunc
	// batches counts the batches sent (the tests read it).
	batches int
}

// record is one start's writes, waiting to be sent.
type record struct {
	ctx    context.Context // the start's: its arrival
	order  string          // the id of the row it locks first
	writes []write

	taken bool          // in a batch (under together.mu)
	gone  bool          // its start left (under together.mu)
	done  chan struct{} // closed once its outcome is set
	// changed holds how many rows each write changed; alone, that the
	// batch failed and the record is to be sent again by itself.
	changed []int64
	err     error
	alone   bool
}

// send sends writes, which lock the row order first, in a batch with the
// other records waiting, and returns how many rows each changed, as
// execBatch does.
func (t *together) send(ctx context.Context, order string, writes ...write) ([]int64, error) {
	r := &record{ctx: ctx, order: order, writes: writes, done: make(chan struct{})}
	t.mu.Lock()
	t.pending = append(t.pending, r)
	t.waiting++
	lead := !t.writing
	t.writing = true
	t.mu.Unlock()
	if lead {
		go t.write()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		t.leave(r)
		return nil, ctx.Err()
	}
	if r.alone {
		return t.db.execBatch(ctx, writes...)
	}
	return r.changed, r.err
}

// leave lets r's start go: r is dropped if it still waits, and the batch
// in flight, or the writer's wait in line, given up if no start waits now.
func (t *together) leave(r *record) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r.gone || isClosed(r.done) {
		return
	}
	r.gone = true
	if !r.taken {
		t.pending = slices.DeleteFunc(t.pending, func(p *record) bool { return p == r })
	}
	t.waiting--
	if t.waiting == 0 && t.cancel != nil {
		t.cancel()
	}
}

// write sends batches of the records waiting until none is left.
func (t *together) write() {
	for t.writeBatch() {
	}
}

// writeBatch sends a batch of the records waiting, and tells whether there
// were any. It waits for its place in line as old as the oldest record,
// and takes the records once it has a connection, those that came
// meanwhile with them.
func (t *together) writeBatch() bool {
	t.mu.Lock()
	if len(t.pending) == 0 {
		t.writing = false
		t.mu.Unlock()
		return false
	}
	// Not the oldest start's cancellation: the batch is everyone's.
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.pending[0].ctx))
	defer cancel()
	t.cancel = cancel
	t.mu.Unlock()

	var batch []*record
	err := t.db.onPgx(ctx, func(c *pgx.Conn) error {
		batch = t.take()
		if len(batch) == 0 {
			return nil
		}
		return t.sendBatch(ctx, c, batch)
	})
	sent := batch != nil
	if !sent && err != nil {
		// No connection for the batch: each record tries alone.
		batch = t.take()
	}
	t.settle(ctx, batch, err, sent)
	return true
}

// take takes the records waiting, up to a batch's worth, ordered by the
// rows they lock first.
func (t *together) take() []*record {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := min(len(t.pending), maxTogether)
	batch := slices.Clone(t.pending[:n])
	t.pending = slices.Delete(t.pending, 0, n)
	for _, r := range batch {
		r.taken = true
	}
	// Stable: one thread's starts stay in the order they came.
	slices.SortStableFunc(batch, func(a, b *record) int { return cmp.Compare(a.order, b.order) })
	return batch
}

// sendBatch sends the batch's writes in one round trip and sets what each
// changed; an error undoes them all.
func (t *together) sendBatch(ctx context.Context, c *pgx.Conn, batch []*record) error {
	var writes []write
	for _, r := range batch {
		writes = append(writes, r.writes...)
	}
	t.mu.Lock()
	t.batches++
	t.mu.Unlock()
	changed, err := t.db.sendBatch(ctx, c, writes)
	if err != nil {
		return err
	}
	for _, r := range batch {
		r.changed, changed = changed[:len(r.writes)], changed[len(r.writes):]
	}
	return nil
}

// settle tells each record of the batch its outcome: its own, or, when a
// batch of several failed or none was sent, to be sent again alone.
func (t *together) settle(ctx context.Context, batch []*record, err error, sent bool) {
	if err != nil {
		err = withContextError(ctx, t.db.translate(err))
		t.db.disk.note(err, true)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cancel = nil
	for _, r := range batch {
		switch {
		case err != nil && (len(batch) > 1 || !sent):
			r.alone = true
		case err != nil:
			r.err = err
		}
		if !r.gone {
			t.waiting--
		}
		close(r.done)
	}
}

// isClosed tells whether c is closed.
func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
