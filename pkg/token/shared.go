package token

import (
	"context"
	"sync"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Requests that carry the same token at once share its reads: an agent's
// burst of calls costs the database a few reads of its token, not one a
// call. A request is never answered by a read begun before it arrived, so
// a token revoked before a request arrives is refused to it, as without
// sharing. Of each token, one read is in flight at a time: the requests
// that arrive meanwhile wait for it to end, then share the next, which
// begins at once. A request alone reads at once.

// found is what a read of a token by its hash returned.
type found struct {
	tok auxilia.Token
	ws  auxilia.Workspace
	err error
}

// sharedRead is one read of a token, and those waiting for it.
type sharedRead struct {
	done chan struct{} // closed when out is set
	out  found
	// sharers counts the requests that joined it (the tests wait for them).
	sharers int
	// ctx is the first sharer's, whose place in line for a database
	// connection (auxilia.Arrived) the read takes, without its cancellation.
	ctx context.Context
}

// tokenReads are one token's read in flight and the next, not begun yet.
type tokenReads struct {
	next *sharedRead
}

// sharedReads runs reads of tokens by hash, shared as above.
type sharedReads struct {
	read func(ctx context.Context, hash string) found

	mu sync.Mutex
	// inFlight holds the tokens with a read in flight; a token has no
	// entry while it has none.
	inFlight map[string]*tokenReads
}

func newSharedReads(read func(ctx context.Context, hash string) found) *sharedReads {
	return &sharedReads{read: read, inFlight: map[string]*tokenReads{}}
}

// get returns a read of hash begun after the call: its own, when no read of
// hash is in flight, else the next one, which it shares. A wait cut short
// by ctx returns ctx's error; the read goes on for the others.
func (s *sharedReads) get(ctx context.Context, hash string) found {
	s.mu.Lock()
	t, busy := s.inFlight[hash]
	if !busy {
		s.inFlight[hash] = &tokenReads{}
		s.mu.Unlock()
		out := s.read(ctx, hash)
		s.ended(hash)
		return out
	}
	if t.next == nil {
		t.next = &sharedRead{done: make(chan struct{}), ctx: context.WithoutCancel(ctx)}
	}
	r := t.next
	r.sharers++
	s.mu.Unlock()
	select {
	case <-r.done:
		return r.out
	case <-ctx.Done():
		return found{err: ctx.Err()}
	}
}

// ended follows the end of hash's read in flight: the next one begins, if
// any request waits for it.
func (s *sharedReads) ended(hash string) {
	s.mu.Lock()
	t := s.inFlight[hash]
	r := t.next
	if r == nil {
		delete(s.inFlight, hash)
		s.mu.Unlock()
		return
	}
	t.next = nil
	s.mu.Unlock()
	go func() {
		r.out = s.read(r.ctx, hash)
		close(r.done)
		s.ended(hash)
	}()
}
