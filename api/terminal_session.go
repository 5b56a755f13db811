package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/coder/websocket"
)

// Bounds of a terminal's connection.
const (
	// terminalFrameLimit bounds a frame from the client (a paste).
	terminalFrameLimit = 1 << 20
	// terminalWriteTimeout bounds a write to the client.
	terminalWriteTimeout = time.Minute
	// maxTerminalsPerRun bounds the shells a run keeps open on one server,
	// with or without a connection: each holds a process in the instance
	// and a connection to the provider.
	maxTerminalsPerRun = 4
)

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

// read passes the shell's output on until it ends.
func (s *terminalSession) read() {
	for {
		buf := make([]byte, 32<<10)
		n, err := s.term.Read(buf)
		if n > 0 {
			s.out <- buf[:n]
		}
		if err != nil {
			s.ended = err
			close(s.out)
			return
		}
	}
}

// attach serves the shell on conn until either ends: a dropped connection
// leaves the shell for another (release); an ended shell closes conn.
func (ss *terminalSessions) attach(s *terminalSession, conn *websocket.Conn) {
	conn.SetReadLimit(terminalFrameLimit)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dropped := make(chan struct{})
	go func() {
		defer close(dropped)
		s.takeInput(ctx, conn)
	}()
	if len(s.pending) > 0 {
		if !s.send(ctx, conn, s.pending) {
			ss.release(s)
			return
		}
		s.pending = nil
	}
	for {
		select {
		case chunk, ok := <-s.out:
			if !ok {
				ss.finish(s, conn)
				return
			}
			if !s.send(ctx, conn, chunk) {
				s.pending = chunk
				ss.release(s)
				return
			}
		case <-dropped:
			_ = conn.CloseNow()
			ss.release(s)
			return
		}
	}
}

// send writes output to the client; false when the connection is gone.
func (s *terminalSession) send(ctx context.Context, conn *websocket.Conn, chunk []byte) bool {
	ctx, cancel := context.WithTimeout(ctx, terminalWriteTimeout)
	defer cancel()
	return conn.Write(ctx, websocket.MessageBinary, chunk) == nil
}

// terminalControl is a text frame: a resize from the client; an exit or an
// error from the server.
type terminalControl struct {
	Type    string `json:"type"`
	Cols    int    `json:"cols,omitempty"`
	Rows    int    `json:"rows,omitempty"`
	Code    *int   `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// takeInput types the client's keystrokes and applies its resizes until
// the connection drops.
func (s *terminalSession) takeInput(ctx context.Context, conn *websocket.Conn) {
	for {
		kind, data, err := conn.Read(ctx)
		if err != nil {
			return
		}
		if kind == websocket.MessageBinary {
			if _, err := s.term.Write(data); err != nil {
				return
			}
			continue
		}
		var ctl terminalControl
		if json.Unmarshal(data, &ctl) != nil || ctl.Type != "resize" ||
			ctl.Cols < 1 || ctl.Rows < 1 || ctl.Cols > maxTerminalCells || ctl.Rows > maxTerminalCells {
			continue // not a control this server knows: ignored, as the keystrokes go on
		}
		_ = s.term.Resize(ctx, provider.TermSize{Cols: uint16(ctl.Cols), Rows: uint16(ctl.Rows)})
	}
}

// finish ends the session, then tells the client how the shell ended and
// closes the connection: a client that reads the close finds it audited.
func (ss *terminalSessions) finish(s *terminalSession, conn *websocket.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), terminalWriteTimeout)
	defer cancel()
	ss.mu.Lock()
	stopping := ss.stopping
	ss.mu.Unlock()
	if stopping {
		ss.end(s, "the server shut down")
		msg, _ := json.Marshal(terminalControl{Type: "error", Message: "The server is shutting down: open a new shell once it is back."})
		_ = conn.Write(ctx, websocket.MessageText, msg)
		_ = conn.Close(websocket.StatusGoingAway, "")
		return
	}
	code := s.term.ExitCode()
	if errors.Is(s.ended, io.EOF) {
		ss.end(s, fmt.Sprintf("the shell exited with %d", code))
		msg, _ := json.Marshal(terminalControl{Type: "exit", Code: &code})
		_ = conn.Write(ctx, websocket.MessageText, msg)
		_ = conn.Close(websocket.StatusNormalClosure, "")
		return
	}
	why := problemOf(s.ended).Detail
	var pe *provider.Error
	if errors.As(s.ended, &pe) {
		why = pe.Error() // scrubbed of the provider's secret
	}
	ss.end(s, "it failed: "+why)
	msg, _ := json.Marshal(terminalControl{Type: "error", Message: why})
	_ = conn.Write(ctx, websocket.MessageText, msg)
	_ = conn.Close(websocket.StatusInternalError, "")
}
