package fakekit

import "sync"

// Faults holds what a fake's operations are to suffer instead of behaving:
// a fault either lasts until Clear, or for a number of calls, after which
// the next one queued for the operation is due. The zero value is ready;
// it is safe for concurrent use.
type Faults[Op comparable, F any] struct {
	mu     sync.Mutex
	queued map[Op][]injected[F]
}

type injected[F any] struct {
	fault F
	left  int // calls it has left; 0 lasts until Clear
}

// Set makes op suffer f on every call until Clear, instead of what was
// injected before.
func (fs *Faults[Op, F]) Set(op Op, f F) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.init()
	fs.queued[op] = []injected[F]{{fault: f}}
}

// Queue makes op suffer f on its next times calls (at least one), after
// the faults queued before.
func (fs *Faults[Op, F]) Queue(op Op, f F, times int) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.init()
	fs.queued[op] = append(fs.queued[op], injected[F]{fault: f, left: max(times, 1)})
}

// Take returns the fault due for a call of op, if any.
func (fs *Faults[Op, F]) Take(op Op) (F, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	queue := fs.queued[op]
	if len(queue) == 0 {
		var none F
		return none, false
	}
	due := queue[0]
	if due.left > 0 {
		if queue[0].left--; queue[0].left == 0 {
			fs.queued[op] = queue[1:]
		}
	}
	return due.fault, true
}

// Clear makes every operation behave again.
func (fs *Faults[Op, F]) Clear() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.queued = nil
}

func (fs *Faults[Op, F]) init() {
	if fs.queued == nil {
		fs.queued = map[Op][]injected[F]{}
	}
}
