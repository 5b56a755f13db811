package token

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heldLookup is a token store whose reads by hash can be held open: a
// read sees the token as it is when the read begins, and then waits for
// release while held.
type heldLookup struct {
	mu      sync.Mutex
	tokens  map[string]auxilia.Token // by hash
	reads   int
	touches int
	held    bool
	release chan struct{}
	began   chan string // a read began, of this hash
	Lookup              // the methods Authenticate does not use
}

func newHeldLookup(values ...string) *heldLookup {
	l := &heldLookup{tokens: map[string]auxilia.Token{}, release: make(chan struct{}), began: make(chan string, 100)}
	for _, v := range values {
		l.tokens[Hash(v)] = auxilia.Token{ID: "id-" + v, Name: v, Role: auxilia.RoleMember}
	}
	return l
}

func (l *heldLookup) ByHash(ctx context.Context, hash string) (auxilia.Token, auxilia.Workspace, error) {
	l.mu.Lock()
	l.reads++
	tok, ok := l.tokens[hash]
	held := l.held
	l.mu.Unlock()
	l.began <- hash
	if held {
		select {
		case <-l.release:
		case <-ctx.Done():
			return auxilia.Token{}, auxilia.Workspace{}, ctx.Err()
		}
	}
	if !ok {
		return auxilia.Token{}, auxilia.Workspace{}, auxilia.NotFound("token")
	}
	return tok, auxilia.Workspace{ID: "ws", Name: "acme"}, nil
}

func (l *heldLookup) Touch(_ context.Context, id string, at, since time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for h, tok := range l.tokens {
		if tok.ID == id && (tok.LastUsedAt == nil || tok.LastUsedAt.Before(since)) {
			tok.LastUsedAt = &at
			l.tokens[h] = tok
			l.touches++
		}
	}
	return nil
}

func (l *heldLookup) hold() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held = true
}

func (l *heldLookup) revoke(value string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tok := l.tokens[Hash(value)]
	now := time.Now()
	tok.RevokedAt = &now
	l.tokens[Hash(value)] = tok
}

func (l *heldLookup) count() (reads, touches int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reads, l.touches
}

func newHeldService(l *heldLookup) *Service { return New(nil, l, nil, nil, nil) }

// authenticating starts Authenticate in the background; its answer comes
// on the channel.
func authenticating(ctx context.Context, s *Service, value string) chan error {
	out := make(chan error, 1)
	go func() {
		a, err := s.Authenticate(ctx, value)
		if err == nil && a.TokenName != value {
			err = errors.New("the actor of another token: " + a.TokenName)
		}
		out <- err
	}()
	return out
}

// awaitSharers waits until n requests wait for the next read of value.
func awaitSharers(t *testing.T, s *Service, value string, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return s.reads.waiting(Hash(value)) == n }, 10*time.Second, time.Millisecond)
}

// The requests that arrive while their token's read is in flight share
// the next read, which also records the token's use once for all.
func TestRequestsCarryingOneTokenAtOnceShareItsReads(t *testing.T) {
	l := newHeldLookup("alpha")
	s := newHeldService(l)
	l.hold()
	first := authenticating(context.Background(), s, "alpha")
	<-l.began
	var rest []chan error
	for range 20 {
		rest = append(rest, authenticating(context.Background(), s, "alpha"))
	}
	awaitSharers(t, s, "alpha", 20)
	close(l.release)
	require.NoError(t, <-first)
	for _, r := range rest {
		require.NoError(t, <-r)
	}
	reads, touches := l.count()
	assert.Equal(t, 2, reads, "the first request's read, and one shared by the twenty")
	assert.Equal(t, 1, touches, "the second read saw the use the first recorded")

	require.NoError(t, <-authenticating(context.Background(), s, "alpha"))
	reads, _ = l.count()
	assert.Equal(t, 3, reads, "a request alone reads at once")
}

// A token revoked while a read of it is in flight is refused to every
// request that arrives after the revocation: they share a read begun after
// them, never the one in flight.
func TestARequestIsNeverAnsweredByAReadBegunBeforeIt(t *testing.T) {
	l := newHeldLookup("alpha")
	s := newHeldService(l)
	l.hold()
	before := authenticating(context.Background(), s, "alpha")
	<-l.began
	l.revoke("alpha")
	after := authenticating(context.Background(), s, "alpha")
	awaitSharers(t, s, "alpha", 1)
	close(l.release)
	assert.NoError(t, <-before, "its read began before the revocation")
	assert.True(t, auxilia.IsCode(<-after, auxilia.CodeUnauthorized), "revoked before it arrived")
}

// A request that gives up while it waits leaves at once; the read it was
// to share goes on for the others. Reads of other tokens never wait.
func TestAWaiterThatGivesUpLeavesTheReadToTheOthers(t *testing.T) {
	l := newHeldLookup("alpha", "beta")
	s := newHeldService(l)
	l.hold()
	first := authenticating(context.Background(), s, "alpha")
	<-l.began
	ctx, cancel := context.WithCancel(context.Background())
	leaving := authenticating(ctx, s, "alpha")
	staying := authenticating(context.Background(), s, "alpha")
	awaitSharers(t, s, "alpha", 2)
	cancel()
	assert.ErrorIs(t, <-leaving, context.Canceled)

	other := authenticating(context.Background(), s, "beta")
	assert.Equal(t, Hash("beta"), <-l.began, "another token's read begins while alpha's is in flight")

	close(l.release)
	assert.NoError(t, <-first)
	assert.NoError(t, <-staying)
	assert.NoError(t, <-other)
	assert.Eventually(t, func() bool {
		s.reads.mu.Lock()
		defer s.reads.mu.Unlock()
		return len(s.reads.inFlight) == 0
	}, 10*time.Second, time.Millisecond, "nothing is left in flight")
}

// waiting tells how many requests wait for the next read of hash.
func (s *sharedReads) waiting(hash string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t := s.inFlight[hash]; t != nil && t.next != nil {
		return t.next.sharers
	}
	return 0
}
