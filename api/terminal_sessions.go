package api

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/run"
)

// The registry of terminal sessions: which shells are open, how many a run
// may have, who may take a dropped one back, and how they all end. What
// runs over a session's WebSocket is terminal_pump.go's.

// maxTerminalsPerRun bounds the shells a run keeps open on one server,
// with or without a connection: each holds a process in the instance and a
// connection to the provider.
const maxTerminalsPerRun = 4

// Terminals are the shells a server keeps open. New fills one given in its
// Config; the program serving the API ends them with Stop as it shuts
// down: a terminal's WebSocket is a hijacked connection, which the HTTP
// server's Shutdown neither waits for nor closes.
type Terminals struct {
	sessions *terminalSessions
}

// Stop ends every shell and opens no more: each connection is told the
// server is shutting down and closed with 1001. It returns once they all
// have been, or when ctx ends.
func (t *Terminals) Stop(ctx context.Context) {
	if t.sessions != nil {
		t.sessions.stop(ctx)
	}
}

// terminalSessions are the terminals open on this server, with or without
// a connection: a shell whose connection dropped waits grace for another
// of the token that opened it.
type terminalSessions struct {
	grace time.Duration
	audit auxilia.Auditor

	mu       sync.Mutex
	open     map[*terminalSession]struct{}
	perRun   map[string]int // shells open or being opened, by runKey
	stopping bool           // the server is shutting down: no more shells
	serving  sync.WaitGroup // the terminal requests under way, WebSocket included
}

func newTerminalSessions(grace time.Duration, audit auxilia.Auditor) *terminalSessions {
	return &terminalSessions{grace: grace, audit: audit, open: map[*terminalSession]struct{}{}, perRun: map[string]int{}}
}

func runKey(workspace, runID string) string { return workspace + "/" + runID }

// serve counts a terminal request for the whole of its life, its
// WebSocket's included, so that stop can wait for it; it refuses one once
// the server is shutting down.
func (ss *terminalSessions) serve() (done func(), err error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.stopping {
		return nil, auxilia.Errorf(auxilia.CodeUnavailable, "The server is shutting down: open the terminal again in a moment.")
	}
	ss.serving.Add(1)
	return ss.serving.Done, nil
}

// stop ends every shell, then waits for each request to have told its
// connection why (finish), or for ctx to end.
func (ss *terminalSessions) stop(ctx context.Context) {
	ss.mu.Lock()
	ss.stopping = true
	all := make([]*terminalSession, 0, len(ss.open))
	for s := range ss.open {
		all = append(all, s)
	}
	ss.mu.Unlock()
	var ending sync.WaitGroup
	for _, s := range all {
		ending.Go(func() { ss.end(s, "the server shut down") })
	}
	told := make(chan struct{})
	go func() {
		ending.Wait()
		ss.serving.Wait() // no request is counted once stopping is set
		close(told)
	}()
	select {
	case <-told:
	case <-ctx.Done():
	}
}

// reserve counts a shell about to be opened for the run, or refuses it when
// the run has as many as it may; giveBack returns the place when the shell
// could not be opened (once opened, ending it does).
func (ss *terminalSessions) reserve(workspace, runID string) (giveBack func(), err error) {
	key := runKey(workspace, runID)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.perRun[key] >= maxTerminalsPerRun {
		return nil, terminalLimit()
	}
	ss.perRun[key]++
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		ss.forget(key)
	}, nil
}

// checkRoom refuses, as reserve would, a new shell for a run that has as
// many as it may, none of them a dropped one the token may take back.
func (ss *terminalSessions) checkRoom(workspace, runID, tokenID string) error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.perRun[runKey(workspace, runID)] < maxTerminalsPerRun {
		return nil
	}
	for s := range ss.open {
		if s.takenBackBy(workspace, runID, tokenID) {
			return nil
		}
	}
	return terminalLimit()
}

func terminalLimit() error {
	return auxilia.Errorf(auxilia.CodeTerminalLimit,
		"The run has %d terminals open, the most it may have: close one (or let a dropped one end) first.", maxTerminalsPerRun)
}

// forget gives back a run's place; ss.mu is held.
func (ss *terminalSessions) forget(key string) {
	if ss.perRun[key]--; ss.perRun[key] <= 0 {
		delete(ss.perRun, key)
	}
}

// terminalSession is one shell and what it showed that no connection took yet.
type terminalSession struct {
	term      *run.Terminal
	workspace string
	// owner is the id of the token that opened the shell: only a connection
	// authenticated as that token takes it back, since what was typed in
	// it (a password, its history) is that token's holder's alone.
	owner    string
	auditCtx context.Context // the opener's, for the closing entry
	opened   time.Time

	out     chan []byte // the shell's output, closed when it ends
	ended   error       // why it ended: io.EOF when it exited; set before out closes
	pending []byte      // output a dropped connection did not take

	// Guarded by terminalSessions.mu.
	attached bool
	grace    *time.Timer
}

// add keeps a new shell, opened by the token owner and attached to the
// connection about to be made, in the place reserve gave it.
func (ss *terminalSessions) add(auditCtx context.Context, workspace, owner string, term *run.Terminal) *terminalSession {
	s := &terminalSession{term: term, workspace: workspace, owner: owner, auditCtx: auditCtx, opened: time.Now(),
		out: make(chan []byte, 16), attached: true}
	go s.read()
	ss.mu.Lock()
	ss.open[s] = struct{}{}
	stopping := ss.stopping
	ss.mu.Unlock()
	if stopping { // opened while stop ended the others
		ss.end(s, "the server shut down")
	}
	return s
}

// detached takes back a shell of the run that the token opened and whose
// connection dropped, if there is one.
func (ss *terminalSessions) detached(workspace, runID, tokenID string) *terminalSession {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for s := range ss.open {
		if s.takenBackBy(workspace, runID, tokenID) && s.grace.Stop() {
			s.attached = true
			return s
		}
	}
	return nil
}

// takenBackBy reports whether a connection to the run as the token may
// take the shell back: it is the run's, it waits for a connection, and the
// token opened it. The token is compared by its id, never by its name,
// which another token may share. ss.mu is held.
func (s *terminalSession) takenBackBy(workspace, runID, tokenID string) bool {
	return !s.attached && s.workspace == workspace && s.term.Run.ID == runID && s.owner == tokenID
}

// release leaves a shell without a connection: it ends after the grace
// period unless a connection takes it back.
func (ss *terminalSessions) release(s *terminalSession) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s.attached = false
	s.grace = time.AfterFunc(ss.grace, func() { ss.end(s, "its connection dropped and no other took it back") })
}

// end closes a shell and audits it, once.
func (ss *terminalSessions) end(s *terminalSession, why string) {
	ss.mu.Lock()
	_, open := ss.open[s]
	if open {
		delete(ss.open, s)
		ss.forget(runKey(s.workspace, s.term.Run.ID))
	}
	ss.mu.Unlock()
	if !open {
		return
	}
	_ = s.term.Close()
	took := time.Since(s.opened).Round(time.Second)
	_ = auxilia.Audit(s.auditCtx, ss.audit, s.workspace, "terminal.closed", "run", s.term.Run.ID,
		fmt.Sprintf("closed the terminal after %s: %s", took, why))
}
