package provider

import (
	"context"
	"time"
)

// Search looks for what one create made when its answer was lost: the
// provider's listing of the instances labelled with that create's id, and
// the check that an item really carries the label, so that a server that
// ignores the listing's filter cannot pass another instance off as it.
type Search[T any] struct {
	List  func(ctx context.Context) ([]T, error)
	Match func(T) bool
	// Looks is how many times to list, pausing as Backoff says between two
	// (some listings are eventually consistent); zero means once.
	Looks   int
	Backoff Backoff
}

// Find returns what the create made. Not finding it is an answer only when
// a listing succeeded: when none did, it returns the last listing's error
// (or the context's, when it ended first).
func (s Search[T]) Find(ctx context.Context) (T, bool, error) {
	var none T
	pauses := s.Backoff.Pauses()
	listed := false
	var err error
	for look := 0; look < max(s.Looks, 1) && ctx.Err() == nil; look++ {
		if look > 0 {
			if perr := Sleep(ctx, pauses.Next()); perr != nil {
				break
			}
		}
		var items []T
		if items, err = s.List(ctx); err != nil {
			continue
		}
		listed = true
		for _, item := range items {
			if s.Match(item) {
				return item, true, nil
			}
		}
	}
	if listed {
		return none, false, nil
	}
	if err == nil {
		err = ctx.Err()
	}
	return none, false, err
}

// Salvage is Find for a create whose answer was lost, and whose caller may
// have left meanwhile: it looks with a context of its own, for at most
// within, and hands what it finds only to a caller still there; for one
// that has left it destroys it, so that nothing is left behind.
func (s Search[T]) Salvage(ctx context.Context, within time.Duration, destroy func(context.Context, T)) (T, bool) {
	var none T
	look, cancel := context.WithTimeout(context.WithoutCancel(ctx), within)
	defer cancel()
	found, ok, err := s.Find(look)
	switch {
	case err != nil || !ok:
		return none, false
	case ctx.Err() != nil:
		destroy(look, found)
		return none, false
	}
	return found, true
}
