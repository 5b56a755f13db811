package store

import (
	"container/heap"
	"context"
	"database/sql"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Statements take their turn for a Postgres connection in the order their
// requests arrived. database/sql hands a freed connection to a waiter
// chosen at random, so under a burst a request, which needs a connection
// for each of its statements, draws lots again at each one, and the first
// to arrive finish no sooner than the last. In line, the oldest request's
// statement goes first, and a burst is served in the order it came.
//
// The line has a place for each statement run at once: one for each
// connection of the pool, or fewer (DB.LimitStatementsAtOnce), as many as
// the database serves without its statements slowing each other down. A
// statement, or a whole transaction, takes a place before it takes its
// connection and gives it back with it, so that it never waits in
// database/sql's lottery.
// A request's statements are as old as the request (auxilia.Arrived),
// or as it made them by yielding its turn (auxilia.YieldTurn); a batch of
// requests' parts (together.go), as its oldest part; work no request
// carries (the jobs) is as old as its statement. A transaction's
// statements pass without waiting: they use the connection it holds, or
// would otherwise wait for a place it holds itself. The embedded database
// has no line.

// line hands out places, oldest waiter first.
type line struct {
	mu      sync.Mutex
	free    int
	held    int
	seq     uint64 // orders waiters of the same age
	waiting waiters
	// waits and waited count the statements that waited for a place, and
	// how long they waited in all (nanoseconds).
	waits, waited atomic.Int64
	// taken counts the places taken, and busy is how long they were held
	// in all (places held × time) up to changed, the last change of held.
	taken   int64
	busy    time.Duration
	changed time.Time
}

// tally adds the places held since the last change to busy. The caller
// holds mu, and changes held next.
func (l *line) tally(now time.Time) {
	if !l.changed.IsZero() {
		l.busy += time.Duration(l.held) * now.Sub(l.changed)
	}
	l.changed = now
}

// holds tells how many places were taken, and how long they were held in
// all, up to now.
func (l *line) holds() (int64, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tally(time.Now())
	return l.taken, l.busy
}

// resize sets how many places the line has (DB.resizeLine); none: no
// bound, as database/sql then has none.
func (l *line) resize(places int) {
	if places <= 0 {
		places = math.MaxInt32
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.free = places - l.held
	for l.free > 0 && len(l.waiting) > 0 {
		l.free--
		l.admit()
	}
}

// enter waits for a place for ctx's work, unless it runs in a
// transaction, whose place is held, and tells whether it took one, which
// the caller gives back with leave. A waiter whose ctx ends leaves the
// line with ctx's error.
func (l *line) enter(ctx context.Context) (bool, error) {
	if l == nil || ctx.Value(txKey{}) != nil {
		return false, nil
	}
	at := turnOf(ctx)
	l.mu.Lock()
	t, moves := ctx.Value(turnKey{}).(*turn)
	if moves {
		at = t.at
	}
	if l.free > 0 && len(l.waiting) == 0 {
		l.free--
		l.tally(time.Now())
		l.held++
		l.taken++
		l.mu.Unlock()
		return true, nil
	}
	l.seq++
	w := &waiter{at: at, seq: l.seq, admitted: make(chan struct{})}
	heap.Push(&l.waiting, w)
	if moves {
		t.waiter = w
	}
	l.mu.Unlock()
	began := time.Now()
	defer func() {
		l.waits.Add(1)
		l.waited.Add(int64(time.Since(began)))
	}()
	select {
	case <-w.admitted:
		return true, nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if w.index >= 0 {
			heap.Remove(&l.waiting, w.index)
			return false, ctx.Err()
		}
		// Admitted as ctx ended: hand the place on.
		l.tally(time.Now())
		l.held--
		l.free++
		l.passOn()
		return false, ctx.Err()
	}
}

// turnOf is when ctx's work takes its turn: as old as its request
// (auxilia.Arrived), or, for work no request carries, now.
func turnOf(ctx context.Context) time.Time {
	if at, ok := auxilia.ArrivedAt(ctx); ok {
		return at
	}
	return time.Now()
}

// A turn is a turn in line that its work may move up while it waits: a
// batch of requests' parts (together.go) is as old as the oldest of them,
// which may join it in line.
type turn struct {
	at     time.Time // under line.mu
	waiter *waiter   // once it waits (under line.mu)
}

type turnKey struct{}

// withTurn returns ctx whose work takes t's turn.
func withTurn(ctx context.Context, t *turn) context.Context {
	return context.WithValue(ctx, turnKey{}, t)
}

// hasten moves t up to at, if that is earlier, while it waits or before.
func (l *line) hasten(t *turn, at time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !at.Before(t.at) {
		return
	}
	t.at = at
	if w := t.waiter; w != nil && w.index >= 0 {
		w.at = at
		heap.Fix(&l.waiting, w.index)
	}
}

// leave gives a place back, to the oldest waiter if there is one.
func (l *line) leave() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tally(time.Now())
	l.held--
	l.free++
	l.passOn()
}

// passOn admits the oldest waiter into a free place.
func (l *line) passOn() {
	if l.free > 0 && len(l.waiting) > 0 {
		l.free--
		l.admit()
	}
}

// admit lets the oldest waiter in.
func (l *line) admit() {
	w := heap.Pop(&l.waiting).(*waiter)
	l.tally(time.Now())
	l.held++
	l.taken++
	close(w.admitted)
}

type waiter struct {
	at       time.Time
	seq      uint64
	index    int // in waiters; -1 once admitted
	admitted chan struct{}
}

// waiters is a heap of waiters, oldest first.
type waiters []*waiter

func (h waiters) Len() int { return len(h) }
func (h waiters) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h waiters) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *waiters) Push(x any) {
	w := x.(*waiter)
	w.index = len(*h)
	*h = append(*h, w)
}
func (h *waiters) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	w.index = -1
	*h = old[:len(old)-1]
	return w
}

// inLine is the Postgres pool as the store's GORM uses it: each statement
// takes its place in line first (a transaction takes its place in InTx).
type inLine struct {
	pool retryKilled
	line *line
}

// GetDBConn is the database/sql pool under it.
func (p inLine) GetDBConn() (*sql.DB, error) { return p.pool.GetDBConn() }

func (p inLine) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return p.pool.PrepareContext(ctx, query)
}

func (p inLine) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	held, err := p.line.enter(ctx)
	if err != nil {
		return nil, err
	}
	if held {
		defer p.line.leave()
	}
	return p.pool.ExecContext(ctx, query, args...)
}

// QueryContext gives its place back as its rows come, before they are
// read: the line may then be a place over the pool, while they are.
func (p inLine) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	held, err := p.line.enter(ctx)
	if err != nil {
		return nil, err
	}
	if held {
		defer p.line.leave()
	}
	return p.pool.QueryContext(ctx, query, args...)
}

// QueryRowContext, like QueryContext, gives its place back before its row
// is scanned.
func (p inLine) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	// A wait cut short by ctx's end takes no place; the row's scan then
	// tells ctx's error.
	if held, _ := p.line.enter(ctx); held {
		defer p.line.leave()
	}
	return p.pool.QueryRowContext(ctx, query, args...)
}

// BeginTx begins a transaction whose place InTx took.
func (p inLine) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	return p.pool.BeginTx(ctx, opts)
}

// ConnectionWaits tells how many statements and transactions have waited
// for a place in line for a connection, and how long in all (none on the
// embedded database).
func (db *DB) ConnectionWaits() (int64, time.Duration) {
	if db.line == nil {
		return 0, 0
	}
	return db.line.waits.Load(), time.Duration(db.line.waited.Load())
}

// LineHolds tells how many places in line for a connection statements and
// transactions have taken, and how long they held them in all (none on the
// embedded database). A place is held from its statement's turn to its
// answer read, the statement's wait for the server's processors included:
// a mean hold well above the database's own time for a statement says the
// server's processors, not the database's, are what the line waits for.
func (db *DB) LineHolds() (int64, time.Duration) {
	if db.line == nil {
		return 0, 0
	}
	return db.line.holds()
}
