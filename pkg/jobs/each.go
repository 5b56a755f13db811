package jobs

import (
	"context"
	"time"
)

// Spread says how a pass works its items (sandboxes, threads, instances):
// at most Parallel at once, each within its own Deadline (none if 0).
type Spread struct {
	Parallel int
	Deadline time.Duration
}

// Each runs fn for every item, beside one another: at most Parallel at
// once, and, while several groups (workspaces) have work, at most a fair
// share of Parallel for one group, each item under its own Deadline. One
// item that never ends before its deadline (a provider that accepts the
// connection and never answers) holds one slot, not the pass: the other
// items, and the other workspaces, go on in the slots left. Items of one
// group start in the order given; groups take turns. Each returns once
// every started item has; once ctx ends it starts no more.
func Each[T any](ctx context.Context, items []T, s Spread, group func(T) string, fn func(ctx context.Context, item T)) {
	parallel := max(s.Parallel, 1)
	pending := make([]T, len(items))
	copy(pending, items)
	running := map[string]int{}
	total := 0
	done := make(chan string)
	for len(pending) > 0 || total > 0 {
		if ctx.Err() != nil {
			pending = nil
		}
		next := -1
		if total < parallel {
			next = nextFair(pending, running, parallel, group)
		}
		if next < 0 {
			g := <-done
			running[g]--
			total--
			continue
		}
		item, g := pending[next], group(pending[next])
		pending = append(pending[:next], pending[next+1:]...)
		running[g]++
		total++
		go func() {
			defer func() { done <- g }()
			ictx, cancel := ctx, context.CancelFunc(func() {})
			if s.Deadline > 0 {
				ictx, cancel = context.WithTimeout(ctx, s.Deadline)
			}
			defer cancel()
			fn(ictx, item)
		}()
	}
}

// nextFair picks the pending item to start next: the first of the group
// running the fewest, if that group is within its share (Parallel split
// among the groups with work left); -1 when none may start.
func nextFair[T any](pending []T, running map[string]int, parallel int, group func(T) string) int {
	active := map[string]bool{}
	for g, n := range running {
		if n > 0 {
			active[g] = true
		}
	}
	first := map[string]int{}
	order := []string{}
	for i, it := range pending {
		g := group(it)
		active[g] = true
		if _, seen := first[g]; !seen {
			first[g] = i
			order = append(order, g)
		}
	}
	share := max(1, (parallel+len(active)-1)/len(active))
	best := -1
	for _, g := range order {
		if running[g] >= share {
			continue
		}
		if best < 0 || running[g] < running[group(pending[best])] {
			best = first[g]
		}
	}
	return best
}
