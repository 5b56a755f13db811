package providertest

import (
	"bytes"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// termWait bounds each wait for a terminal's output: long enough for a
// remote provider, short against the `sleep 100` a Ctrl-C must end.
const termWait = 20 * time.Second

// Screen gathers what a terminal shows as it arrives, for a test to wait
// on: a PTY read directly, or a terminal's WebSocket as a browser holds it.
type Screen struct {
	mu      sync.Mutex
	out     bytes.Buffer
	seen    int           // how much of out Expect has matched
	changed chan struct{} // closed and replaced on each new output
	done    chan struct{} // closed by End
	err     error         // End's error
}

// NewScreen returns an empty screen.
func NewScreen() *Screen {
	return &Screen{changed: make(chan struct{}), done: make(chan struct{})}
}

// Show adds output.
func (s *Screen) Show(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out.Write(p)
	close(s.changed)
	s.changed = make(chan struct{})
}

// Shown returns all the output so far, matched or not.
func (s *Screen) Shown() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// End says no more output comes, and why; call it once.
func (s *Screen) End(err error) {
	s.mu.Lock()
	s.err = err
	s.mu.Unlock()
	close(s.done)
}

// Expect waits for want in the output not yet matched, then marks the
// output up to it as matched. What is typed is echoed, and a shell may
// wrap its output in escape sequences (bracketed paste's, a title's), so
// want is a piece only the output holds: "42\r\n" after print(6*7).
func (s *Screen) Expect(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(termWait)
	for {
		s.mu.Lock()
		rest := s.out.String()[s.seen:]
		at := strings.Index(rest, want)
		if at >= 0 {
			s.seen += at + len(want)
		}
		changed := s.changed
		s.mu.Unlock()
		if at >= 0 {
			return
		}
		select {
		case <-changed:
		case <-s.done:
			if s.has(want) {
				return
			}
			t.Fatalf("the terminal ended (%v) before showing %q; it showed %q", s.err, want, tail(rest))
		case <-deadline:
			t.Fatalf("the terminal did not show %q in %s; it showed %q", want, termWait, tail(rest))
		}
	}
}

// has reports whether the output not yet matched holds want, and marks it.
func (s *Screen) has(want string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := strings.Index(s.out.String()[s.seen:], want)
	if at >= 0 {
		s.seen += at + len(want)
	}
	return at >= 0
}

// Ended waits for End and returns its error.
func (s *Screen) Ended(t *testing.T) error {
	t.Helper()
	select {
	case <-s.done:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.err
	case <-time.After(termWait):
		t.Fatalf("the terminal did not end in %s", termWait)
		return errors.New("unreachable")
	}
}
