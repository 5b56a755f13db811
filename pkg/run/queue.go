package run

import (
	"context"
	"sync"
)

// queue hands out a bounded number of slots, first come first served: a
// slot freed goes to the longest waiter, never to a newcomer.
type queue struct {
	mu      sync.Mutex
	free    int
	waiting []chan struct{} // closed when given a slot, in the order they asked
}

func newQueue(slots int) *queue { return &queue{free: slots} }

// enter waits for a slot, and tells whether it had to; leave gives it
// back. A waiter whose ctx ends leaves the line with ctx's error, holding
// nothing.
func (q *queue) enter(ctx context.Context) (waited bool, err error) {
	q.mu.Lock()
	if q.free > 0 && len(q.waiting) == 0 {
		q.free--
		q.mu.Unlock()
		return false, nil
	}
	turn := make(chan struct{})
	q.waiting = append(q.waiting, turn)
	q.mu.Unlock()
	select {
	case <-turn:
		return true, nil
	case <-ctx.Done():
		q.mu.Lock()
		defer q.mu.Unlock()
		for i, w := range q.waiting {
			if w == turn {
				q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
				return true, ctx.Err()
			}
		}
		// Given a slot as ctx ended: hand it on.
		q.passOn()
		return true, ctx.Err()
	}
}

func (q *queue) leave() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.passOn()
}

// passOn gives a freed slot to the longest waiter, or frees it.
func (q *queue) passOn() {
	if len(q.waiting) == 0 {
		q.free++
		return
	}
	close(q.waiting[0])
	q.waiting = q.waiting[1:]
}

// waiters is how many wait for a slot.
func (q *queue) waiters() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// sandboxQueues are one queue per sandbox, each of the same bound, kept
// while anyone holds or waits for one of its slots.
type sandboxQueues struct {
	mu        sync.Mutex
	slots     int
	bySandbox map[string]*sandboxQueue
}

type sandboxQueue struct {
	*queue
	users int // holding a slot or waiting for one
}

func newSandboxQueues(slots int) *sandboxQueues {
	return &sandboxQueues{slots: slots, bySandbox: map[string]*sandboxQueue{}}
}

// enter waits for one of the sandbox's slots and returns how to give it back.
func (s *sandboxQueues) enter(ctx context.Context, sandboxID string) (leave func(), err error) {
	s.mu.Lock()
	q, ok := s.bySandbox[sandboxID]
	if !ok {
		q = &sandboxQueue{queue: newQueue(s.slots)}
		s.bySandbox[sandboxID] = q
	}
	q.users++
	s.mu.Unlock()
	if _, err := q.enter(ctx); err != nil {
		s.done(sandboxID, q)
		return nil, err
	}
	return func() {
		q.leave()
		s.done(sandboxID, q)
	}, nil
}

// done forgets a user of the sandbox's queue, and the queue with its last.
func (s *sandboxQueues) done(sandboxID string, q *sandboxQueue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.users--; q.users == 0 {
		delete(s.bySandbox, sandboxID)
	}
}

// waiting is how many wait for one of the sandbox's slots.
func (s *sandboxQueues) waiting(sandboxID string) int {
	s.mu.Lock()
	q, ok := s.bySandbox[sandboxID]
	s.mu.Unlock()
	if !ok {
		return 0
	}
	return q.waiters()
}
