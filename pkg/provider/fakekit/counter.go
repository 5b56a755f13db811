// Package fakekit is what the fake providers of the tests are made of:
// call counting, injected faults, latency and broken connections, and
// instances that pass through states, so that each fake states only its
// provider's protocol.
package fakekit

import (
	"maps"
	"sync"
)

// Counter counts a fake's calls by operation. A fake embeds it to offer
// Calls, TotalCalls, AllCalls and ResetCalls. The zero value is ready; it
// is safe for concurrent use.
type Counter[Op comparable] struct {
	mu    sync.Mutex
	calls map[Op]int
}

// Count records one call of op.
func (c *Counter[Op]) Count(op Op) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[Op]int{}
	}
	c.calls[op]++
}

// Calls returns how many calls of op the fake had, faulted ones included.
func (c *Counter[Op]) Calls(op Op) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[op]
}

// TotalCalls returns how many calls the fake had, of every operation.
func (c *Counter[Op]) TotalCalls() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range c.calls {
		total += n
	}
	return total
}

// AllCalls returns the count of every operation called so far.
func (c *Counter[Op]) AllCalls() map[Op]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	all := maps.Clone(c.calls)
	if all == nil {
		all = map[Op]int{}
	}
	return all
}

// ResetCalls starts counting afresh.
func (c *Counter[Op]) ResetCalls() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls = nil
}
