package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completeTimeout bounds completing a run once its session has closed.
const completeTimeout = time.Minute

// session is one MCP session: the agent and token that opened it, the
// thread it works on and that thread's run, started by the first call.
type session struct {
	deps  Deps
	actor auxilia.Actor
	agent auxilia.Agent

	mu sync.Mutex
	// thread is the caller's thread key: the Auxilia-Thread header, or
	// the session's own id.
	thread string
	runID  string
	// notice is what the run start said for the model (its instance was
	// replaced): told with the next answer.
	notice   string
	watching bool
}

// newID names the session, and its thread when the client named none.
// Session ids are valid thread keys.
func (s *session) newID() string {
	id := "mcp-" + auxilia.NewID()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.thread == "" {
		s.thread = id
	}
	return id
}

// withRun calls fn with the session's run, starting one (as a REST run
// start does) when the session has none. A run that ended under it (it
// expired, the agent's sandbox changed) is replaced by a new one once.
func (s *session) withRun(ctx context.Context, ss *mcp.ServerSession, fn func(runID string) error) error {
	runID, err := s.run(ctx, ss)
	if err != nil {
		return err
	}
	err = fn(runID)
	if !auxilia.IsCode(err, auxilia.CodeRunNotActive) {
		return err
	}
	s.forget(runID)
	if runID, err = s.run(ctx, ss); err != nil {
		return err
	}
	return fn(runID)
}

func (s *session) run(ctx context.Context, ss *mcp.ServerSession) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock() // calls of one session wait for the one run start
	if s.runID != "" {
		return s.runID, nil
	}
	r, err := s.deps.Runs.Start(ctx, s.actor.Workspace.ID, s.agent.ID, s.thread)
	if err != nil {
		return "", err
	}
	s.runID, s.notice = r.ID, r.Notice
	if !s.watching && ss != nil {
		s.watching = true
		go s.completeOnClose(ss)
	}
	return r.ID, nil
}

// threadKey is the thread the session works on.
func (s *session) threadKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.thread
}

func (s *session) forget(runID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runID == runID {
		s.runID = ""
	}
}

// takeNotice returns the run start's notice, once.
func (s *session) takeNotice() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.notice
	s.notice = ""
	return n
}

// completeOnClose completes the session's run once the session has closed
// (the client deleted it, or it was idle past the session timeout).
func (s *session) completeOnClose(ss *mcp.ServerSession) {
	_ = ss.Wait()
	s.mu.Lock()
	runID := s.runID
	s.runID = ""
	s.mu.Unlock()
	if runID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(s.context(context.Background()), completeTimeout)
	defer cancel()
	if _, err := s.deps.Runs.Complete(ctx, s.actor.Workspace.ID, runID); err != nil && !auxilia.IsCode(err, auxilia.CodeRunNotActive) {
		s.deps.Log.WarnContext(ctx, "complete the run of a closed MCP session", "run_id", runID, "error", err.Error())
	}
}

// context carries the session's actor, for the services' audit entries.
func (s *session) context(ctx context.Context) context.Context {
	return auxilia.WithActor(ctx, s.actor)
}
