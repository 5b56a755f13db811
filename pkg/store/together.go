package store

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Requests that read or write the same way at once share their round trips
// to Postgres: the views of run starts (threadTable.StartView) go together,
// and so do their records (runTable.StartOnInstance). Each kind's parts go
// together in batches, each one implicit transaction, so that a burst of
// starts takes one place in line (inline.go), one connection and, for the
// records, one commit for many of them, not one each. Each caller is
// answered only once the batch that holds its part is in, as before:
// nothing is written after its answer.
//
// A writer waits in line for the parts that wait, as old as the oldest of
// them, those that join it while it waits included (a turn that moves up,
// inline.go), and takes them, up to maxTogether, once it has its
// connection. Up to maxWriters batches of a kind are in flight at once, so
// that the database's processors share a burst; the parts that come
// meanwhile wait for the next writer. A caller that finds no writer
// waiting is that writer, for one batch, so that a part alone is sent as
// it would be without batches. A batch orders its parts by the row each
// locks first (a record, its thread's), so that two batches, of this
// server or another, never wait for each other in turn. A batch that fails
// is undone whole, and each of its parts is then sent again alone, so that
// one part's failure is its own.
//
// A caller whose request ends leaves at once with its context's error: its
// part is dropped if it still waits, and may be done if its batch has it.
// A batch goes on for the callers that still wait for it, and is given up
// once none does; a writer still in line, once no part waits.

const (
	// maxTogether bounds the parts of a batch, so that its transaction
	// holds no more rows than a few milliseconds' worth.
	maxTogether = 64
	// maxWriters bounds the batches of a kind in flight at once.
	maxWriters = 2
)

// together sends parts of one kind in batches, as above.
type together struct {
	db *DB

	mu      sync.Mutex
	pending []*part // oldest first
	writers int     // in flight, or waiting in line
	// inLine tells that a writer waits in line, as old as turn; giveUp
	// cancels its wait.
	inLine bool
	turn   *turn
	giveUp context.CancelFunc
	// batches counts the batches sent (the tests read it).
	batches int
}

// part is one caller's statements: reads, whose rows it scans, then
// writes, whose changed rows it counts.
type part struct {
	ctx    context.Context // the caller's: its arrival
	order  string          // the id of the row it locks first
	reads  []read
	writes []write
	// alone sends the part by itself, when the batch that had it failed.
	alone func(ctx context.Context) error

	batch *batch        // the one that took it (under together.mu)
	gone  bool          // its caller left (under together.mu)
	done  chan struct{} // closed once its outcome is set
	// changed holds how many rows each write changed, err the batch's
	// error, and sendAlone that the batch failed and the part is to be
	// sent again by itself.
	changed   []int64
	err       error
	sendAlone bool
}

// batch is the parts a writer took.
type batch struct {
	parts   []*part
	waiting int                // the parts whose callers wait for it
	cancel  context.CancelFunc // gives it up
}

// send sends p in a batch with the other parts waiting, and returns once
// it is done: its reads scanned and its counts of changed rows set.
func (t *together) send(ctx context.Context, p *part) error {
	p.ctx, p.done = ctx, make(chan struct{})
	t.mu.Lock()
	t.pending = append(t.pending, p)
	if t.turn != nil {
		t.db.line.hasten(t.turn, turnOf(ctx)) // the writer in line is as old as its oldest part
	}
	lead := t.enlist()
	t.mu.Unlock()
	if lead {
		stop := context.AfterFunc(ctx, func() { t.leave(p) })
		t.write(ctx, true)
		stop()
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		t.leave(p)
		return ctx.Err()
	}
	if p.sendAlone {
		return p.alone(ctx)
	}
	return p.err
}

// enlist tells whether a writer is to wait in line for the parts waiting,
// and counts it: when none waits there already and fewer than maxWriters
// are in flight. The caller holds mu.
func (t *together) enlist() bool {
	if t.inLine || t.writers == maxWriters || len(t.pending) == 0 {
		return false
	}
	t.writers++
	t.inLine = true
	return true
}

// leave lets p's caller go: p is dropped if it still waits, and the batch
// that has it given up if no caller waits for it now; a writer in line
// gives up its wait once no part waits.
func (t *together) leave(p *part) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if p.gone || isClosed(p.done) {
		return
	}
	p.gone = true
	if p.batch == nil {
		t.pending = slices.DeleteFunc(t.pending, func(q *part) bool { return q == p })
		if len(t.pending) == 0 && t.giveUp != nil {
			t.giveUp()
		}
		return
	}
	p.batch.waiting--
	if p.batch.waiting == 0 {
		p.batch.cancel()
	}
}

// write is the writer enlisted: it sends a batch of the parts waiting,
// then, if others wait and no writer is in line for them, the next. A
// caller that is the writer (once) sends one batch, and leaves the next to
// a writer of its own; it gives up its wait in line when its own request
// ends (own), and the parts wait for the next writer.
func (t *together) write(own context.Context, once bool) {
	for {
		t.writeBatch(own)
		t.mu.Lock()
		t.writers--
		next := t.enlist()
		t.mu.Unlock()
		if !next {
			return
		}
		if once {
			go t.write(context.Background(), false)
			return
		}
	}
}

// writeBatch waits in line as old as the oldest part waiting and, once it
// has a connection, sends the parts waiting then as a batch. It gives up
// its wait when own ends, or no part waits.
func (t *together) writeBatch(own context.Context) {
	t.mu.Lock()
	if len(t.pending) == 0 {
		t.inLine, t.turn, t.giveUp = false, nil, nil
		t.mu.Unlock()
		return
	}
	// As old as the oldest part, and not any caller's cancellation: the
	// batch is everyone's.
	t.turn = &turn{at: turnOf(t.pending[0].ctx)}
	for _, p := range t.pending[1:] {
		t.turn.at = minTime(t.turn.at, turnOf(p.ctx))
	}
	ctx, cancel := context.WithCancel(withTurn(context.WithoutCancel(t.pending[0].ctx), t.turn))
	defer cancel()
	t.giveUp = cancel
	t.mu.Unlock()
	inLine := context.AfterFunc(own, cancel)
	defer inLine()

	var b *batch
	err := t.db.onPgx(ctx, func(c *pgx.Conn) error {
		if !inLine() {
			return ctx.Err() // own ended meanwhile
		}
		b = t.take(cancel)
		if len(b.parts) == 0 {
			return nil
		}
		return t.sendBatch(ctx, c, b.parts)
	})
	sent := b != nil
	if !sent && ctx.Err() != nil {
		// It gave up its wait: the parts, if any, wait for the next writer.
		t.mu.Lock()
		t.inLine, t.turn, t.giveUp = false, nil, nil
		t.mu.Unlock()
		return
	}
	if !sent {
		// No connection for the batch: each part tries alone.
		b = t.take(cancel)
	}
	t.settle(ctx, b.parts, err, sent)
}

// take ends the writer's wait in line and takes the parts waiting, up to a
// batch's worth, ordered by the rows they lock first.
func (t *together) take(cancel context.CancelFunc) *batch {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inLine, t.turn, t.giveUp = false, nil, nil
	n := min(len(t.pending), maxTogether)
	b := &batch{parts: slices.Clone(t.pending[:n]), waiting: n, cancel: cancel}
	t.pending = slices.Delete(t.pending, 0, n)
	for _, p := range b.parts {
		p.batch = b
	}
	// Stable: parts that lock the same row first stay in the order they came.
	slices.SortStableFunc(b.parts, func(x, y *part) int { return cmp.Compare(x.order, y.order) })
	return b
}

// sendBatch sends the batch's statements in one round trip, scans each
// part's reads and sets what its writes changed; an error undoes them all.
func (t *together) sendBatch(ctx context.Context, c *pgx.Conn, batch []*part) error {
	t.mu.Lock()
	t.batches++
	t.mu.Unlock()
	for _, p := range batch {
		for range len(p.reads) + len(p.writes) {
			t.db.count()
		}
	}
	return sendParts(ctx, c, batch)
}

// sendParts sends the parts' statements on c in one round trip, one
// implicit transaction, scans each part's reads and sets what its writes
// changed; an error undoes them all.
func sendParts(ctx context.Context, c *pgx.Conn, parts []*part) error {
	var b pgx.Batch
	for _, p := range parts {
		for _, r := range p.reads {
			b.Queue(numbered(r.query), r.args...)
		}
		for _, w := range p.writes {
			b.Queue(numbered(w.query), w.args...)
		}
	}
	results := c.SendBatch(ctx, &b)
	for _, p := range parts {
		if err := p.readFrom(results); err != nil {
			_ = results.Close()
			return err
		}
	}
	return results.Close()
}

// readFrom reads p's results from a batch.
func (p *part) readFrom(results pgx.BatchResults) error {
	for _, r := range p.reads {
		rows, err := results.Query()
		if err == nil {
			err = scanEach(rows, r.each)
			rows.Close()
		}
		if err != nil {
			return err
		}
	}
	p.changed = make([]int64, len(p.writes))
	for i := range p.writes {
		tag, err := results.Exec()
		if err != nil {
			return err
		}
		p.changed[i] = tag.RowsAffected()
	}
	return nil
}

// settle tells each part of the batch its outcome: the batch's, or, when a
// batch of several failed, or none was sent, or nothing of it was, to be
// sent again alone.
func (t *together) settle(ctx context.Context, batch []*part, err error, sent bool) {
	wrote := false
	for _, p := range batch {
		wrote = wrote || len(p.writes) > 0
	}
	if err != nil {
		err = withContextError(ctx, t.db.translate(err))
	}
	t.db.disk.note(err, sent && wrote)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range batch {
		switch {
		case err != nil && (len(batch) > 1 || !sent || pgconn.SafeToRetry(err)):
			p.sendAlone = true
		case err != nil:
			p.err = err
		}
		close(p.done)
	}
}

// minTime is the earlier of a and b.
func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
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
