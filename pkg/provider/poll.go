package provider

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Backoff says how long to pause between two looks at something that is
// not there yet: First, then each pause twice the last, up to Max, each
// shortened by up to a tenth at random so that many waiters do not call
// in step.
type Backoff struct {
	First, Max time.Duration
}

// Pauses returns a fresh series of pauses.
func (b Backoff) Pauses() *Pauses { return &Pauses{next: b.First, max: max(b.Max, b.First)} }

// Pauses is one series of growing pauses.
type Pauses struct {
	next, max time.Duration
}

// Next returns the next pause.
func (p *Pauses) Next() time.Duration {
	d := p.next
	p.next = min(2*p.next, p.max)
	if jitter := int64(d / 10); jitter > 0 {
		d -= time.Duration(rand.Int64N(jitter + 1))
	}
	return d
}

// Sleep pauses for d, or less if ctx ends first, when it returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Poll looks at something until it is in the state wanted, pausing between
// looks as Backoff says, for at most Within (zero: until the context ends).
type Poll struct {
	Backoff
	Within time.Duration
}

// Look is one look: the state seen, in words for errors, and whether it is
// the one wanted. An error ends the polling with it.
type Look func(ctx context.Context) (state string, done bool, err error)

// Until looks, and looks again after each pause, until a look is done or
// fails. When time runs out first (Within, or the context ending while it
// pauses) it returns a *StillError naming the last state seen.
func (p Poll) Until(ctx context.Context, look Look) error {
	began := time.Now()
	pauses := p.Pauses()
	for {
		state, done, err := look(ctx)
		if err != nil || done {
			return err
		}
		if p.Within > 0 && time.Since(began) > p.Within {
			return &StillError{State: state, After: p.Within}
		}
		if err := Sleep(ctx, pauses.Next()); err != nil {
			return &StillError{State: state, After: time.Since(began).Round(time.Millisecond), Err: err}
		}
	}
}

// StillError says that what was polled stayed in State for After. When
// the context ended the wait, Err is its error.
type StillError struct {
	State string
	After time.Duration
	Err   error
}

func (e *StillError) Error() string { return fmt.Sprintf("still %s after %s", e.State, e.After) }

func (e *StillError) Unwrap() error { return e.Err }
