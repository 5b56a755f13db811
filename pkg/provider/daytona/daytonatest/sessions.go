package daytonatest

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
)

// entrypointSession is the session the daemon keeps for the sandbox's
// entrypoint, which callers may not create, run in or delete
// (util.EntrypointSessionID in Daytona's apps/daemon/internal/util).
const entrypointSession = "entrypoint"

// sessionKey names a session: its sandbox and its id.
type sessionKey struct{ sandbox, id string }

// shellSession is one of the daemon's shell sessions: a folder of its
// commands' logs, and the commands, which its shell runs one at a time
// (apps/daemon/pkg/session/types.go).
type shellSession struct {
	id  string
	box sandboxBox
	dir string // on the host: the session's folder under the daemon's own
	// ctx ends when the session is deleted or the fake closed: its commands are killed.
	ctx    context.Context
	cancel context.CancelFunc
	// pid is the host pid of the session's shell, the leader of its
	// process group, in the sandbox's jail.
	pid int
	// stdin is the shell's input, which the session's commands are written
	// to, one at a time; the shell reads the next when one is done.
	stdin    *os.File
	stdinMu  sync.Mutex
	commands map[string]string // command id → command, guarded by Server.mu
}

// commandDir is where a command's log, exit code and pipes are, on the host.
func (ss *shellSession) commandDir(cmdID string) string { return filepath.Join(ss.dir, cmdID) }

// sessionRoute names a call under /process/session by the daemon's
// operationId, with the session and command ids in its path (the routes of
// apps/daemon/pkg/toolbox/server.go).
func sessionRoute(method, sub string) (op, sessionID, cmdID string) {
	rest, ok := strings.CutPrefix(sub, "/process/session")
	if !ok {
		return "", "", ""
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	switch {
	case rest == "" && method == http.MethodPost:
		return OpCreateSession, "", ""
	case len(parts) == 1 && parts[0] != "" && method == http.MethodDelete:
		return OpDeleteSession, parts[0], ""
	case len(parts) == 2 && parts[1] == "exec" && method == http.MethodPost:
		return OpSessionExecuteCommand, parts[0], ""
	case len(parts) == 3 && parts[1] == "command" && method == http.MethodGet:
		return OpGetSessionCommand, parts[0], parts[2]
	case len(parts) == 4 && parts[1] == "command" && parts[3] == "logs" && method == http.MethodGet:
		return OpGetSessionCommandLogs, parts[0], parts[2]
	}
	return "", "", ""
}

// serveSession answers the session calls, or gin's bare 404 as a daemon
// without sessions does.
func (s *Server) serveSession(w http.ResponseWriter, r *http.Request, sub string, box sandboxBox) {
	if s.opts.NoSessions {
		noRoute(w)
		return
	}
	op, sessionID, cmdID := sessionRoute(r.Method, sub)
	switch op {
	case OpCreateSession:
		s.createSession(w, r, box)
	case OpSessionExecuteCommand:
		s.sessionExecute(w, r, box, sessionID)
	case OpGetSessionCommand:
		s.getSessionCommand(w, r, box, sessionID, cmdID)
	case OpGetSessionCommandLogs:
		s.sessionCommandLogs(w, r, box, sessionID, cmdID)
	case OpDeleteSession:
		s.deleteSession(w, r, box, sessionID)
	}
}

// createSession starts a session: 201 with no body; an id in use is a 409
// (CreateSession in apps/daemon/pkg/toolbox/process/session/session.go and
// Create in apps/daemon/pkg/session/create.go).
func (s *Server) createSession(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	var req struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{ // InvalidBodyRequestError
			"statusCode": http.StatusBadRequest, "message": "invalid body request: " + err.Error(),
			"code": "INVALID_REQUEST_BODY", "timestamp": time.Now().UTC(), "path": r.URL.Path, "method": r.Method,
		})
		return
	}
	if req.SessionID == entrypointSession {
		toolboxError(w, r, r.URL.Path, http.StatusBadRequest, "bad request: provided session ID is reserved and cannot be created/overridden")
		return
	}
	key := sessionKey{box.id, req.SessionID}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[key]; ok {
		toolboxError(w, r, r.URL.Path, http.StatusConflict, "conflict: session already exists")
		return
	}
	ss := &shellSession{id: req.SessionID, box: box, commands: map[string]string{},
		dir: filepath.Join(box.home, ".daytona", "sessions", req.SessionID)}
	if err := s.startShell(ss); err != nil {
		toolboxError(w, r, r.URL.Path, http.StatusInternalServerError, err.Error())
		return
	}
	if err := makeOwnedDir(ss.dir); err != nil {
		toolboxError(w, r, r.URL.Path, http.StatusInternalServerError, err.Error())
		return
	}
	ss.ctx, ss.cancel = context.WithCancel(s.life)
	s.sessions[key] = ss
	w.WriteHeader(http.StatusCreated)
}

// startShell starts the session's shell in the sandbox's jail, in a
// process group of its own, reading its commands from a pipe the fake
// holds (Create in Daytona's apps/daemon/pkg/session/create.go).
func (s *Server) startShell(ss *shellSession) error {
	j, err := s.sandboxJail(ss.box)
	if err != nil {
		return err
	}
	id := "s-" + uuid.NewString()
	fifo := filepath.Join(j.ctl, id+".in")
	if err := mkfifo(fifo); err != nil {
		return err
	}
	// Read and write, so that the open waits for no reader.
	if ss.stdin, err = os.OpenFile(fifo, os.O_RDWR, 0); err != nil {
		return err
	}
	if ss.pid, err = j.start("session", id); err != nil {
		ss.stdin.Close()
		return err
	}
	return nil
}

// session returns a sandbox's session, or nil.
func (s *Server) session(box sandboxBox, id string) *shellSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sessionKey{box.id, id}]
}

// sessionExecuteRequest is the daemon's SessionExecuteRequest.
type sessionExecuteRequest struct {
	Command  string `json:"command"`
	RunAsync bool   `json:"runAsync"`
	Async    bool   `json:"async"` // the older name of runAsync, still read
}

// sessionExecute hands a command to the session's shell. runAsync answers
// 202 with its id at once; otherwise the call waits for the command's end
// and answers 200 with its output and exit code. A missing session is the
// error middleware's default: a 500 with the wrapped message
// (SessionExecuteCommand in apps/daemon/pkg/toolbox/process/session/execute.go,
// Execute in apps/daemon/pkg/session/execute.go).
func (s *Server) sessionExecute(w http.ResponseWriter, r *http.Request, box sandboxBox, sessionID string) {
	if sessionID == entrypointSession {
		toolboxError(w, r, r.URL.Path, http.StatusBadRequest, "bad request: can't execute command in entrypoint session")
		return
	}
	var req sessionExecuteRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || strings.TrimSpace(req.Command) == "" {
		bareStatus(w, http.StatusBadRequest) // c.AbortWithError writes the status alone
		return
	}
	ss := s.session(box, sessionID)
	if ss == nil {
		defaultError(w, "failed to execute command: not found: session not found")
		return
	}
	cmdID := uuid.NewString()
	err := s.startSessionCommand(ss, cmdID, req.Command, req.RunAsync || req.Async)
	if err != nil {
		toolboxError(w, r, r.URL.Path, http.StatusBadRequest, "bad request: "+err.Error())
		return
	}
	s.recordExecute(box.id, executeRequest{Command: req.Command})
	if req.RunAsync || req.Async {
		writeJSON(w, http.StatusAccepted, sessionExecuteAnswer{CommandID: cmdID})
		return
	}
	// The daemon looks for the exit code every 50ms until the session ends.
	code := ss.exitCode(cmdID)
	for code == nil && ss.ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		code = ss.exitCode(cmdID)
	}
	if code == nil {
		defaultError(w, "failed to execute command: bad request: session cancelled")
		return
	}
	raw, _ := os.ReadFile(filepath.Join(ss.commandDir(cmdID), "output.log"))
	output := string(raw)
	if combinedOutput(r) {
		output = string(stripPrefixes(raw))
	}
	writeJSON(w, http.StatusOK, sessionExecuteAnswer{CommandID: cmdID, Output: &output, ExitCode: code})
}

// sessionExecuteAnswer is the daemon's SessionExecuteResponse: its fields
// are all written, null when unset.
type sessionExecuteAnswer struct {
	CommandID string  `json:"cmdId"`
	Output    *string `json:"output"`
	Stdout    *string `json:"stdout"`
	Stderr    *string `json:"stderr"`
	ExitCode  *int    `json:"exitCode"`
}

// getSessionCommand answers a command's id, text and, once it has ended,
// exit code (GetSessionCommand in apps/daemon/pkg/session/command.go).
func (s *Server) getSessionCommand(w http.ResponseWriter, r *http.Request, box sandboxBox, sessionID, cmdID string) {
	ss, command, ok := s.sessionCommand(w, r, box, sessionID, cmdID)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, struct {
		ID       string `json:"id"`
		Command  string `json:"command"`
		ExitCode *int   `json:"exitCode,omitempty"`
	}{cmdID, command, ss.exitCode(cmdID)})
}

// sessionCommand finds a session's command, or answers the daemon's 404.
func (s *Server) sessionCommand(w http.ResponseWriter, r *http.Request, box sandboxBox, sessionID, cmdID string) (*shellSession, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[sessionKey{box.id, sessionID}]
	if ss == nil {
		toolboxError(w, r, r.URL.Path, http.StatusNotFound, "not found: session not found")
		return nil, "", false
	}
	command, ok := ss.commands[cmdID]
	if !ok {
		toolboxError(w, r, r.URL.Path, http.StatusNotFound, "not found: command not found")
		return nil, "", false
	}
	return ss, command, true
}

// exitCode reads the file the command's wrapper writes its exit code to
// once its output is all in the log; nil while it runs.
func (ss *shellSession) exitCode(cmdID string) *int {
	raw, err := os.ReadFile(filepath.Join(ss.commandDir(cmdID), "exit_code"))
	if err != nil {
		return nil
	}
	code, err := strconv.Atoi(strings.TrimRight(string(raw), "\n"))
	if err != nil {
		return nil
	}
	return &code
}

// deleteSession ends the session's shell as the daemon does (see
// terminateSession), and then the shell itself: what ran in a group of its own and lost its parent
// runs on. Then it removes the session's folder and answers 204 (Delete in
// apps/daemon/pkg/session/delete.go).
func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request, box sandboxBox, sessionID string) {
	if sessionID == entrypointSession {
		toolboxError(w, r, r.URL.Path, http.StatusBadRequest, "bad request: can't delete entrypoint session")
		return
	}
	key := sessionKey{box.id, sessionID}
	s.mu.Lock()
	ss := s.sessions[key]
	delete(s.sessions, key)
	s.mu.Unlock()
	if ss == nil {
		toolboxError(w, r, r.URL.Path, http.StatusNotFound, "not found: session not found")
		return
	}
	terminateSession(ss.pid)
	// The daemon's shell is an exec.CommandContext of the session's
	// context, which it cancels next: Go kills the shell, itself alone.
	ss.cancel()
	_ = syscall.Kill(ss.pid, syscall.SIGKILL)
	awaitExit(ss.pid, time.Second)
	ss.stdin.Close()
	_ = os.RemoveAll(ss.dir)
	w.WriteHeader(http.StatusNoContent)
}

// withoutProcesses are the states of a sandbox whose container runs
// nothing: the daemon and its sessions are gone, and a new daemon has none.
var withoutProcesses = map[string]bool{"stopped": true, "archived": true, "destroyed": true, "error": true}

// endSessions kills a sandbox's sessions, which its daemon took with it.
// Caller holds s.mu.
func (s *Server) endSessions(sandboxID string) {
	for key, ss := range s.sessions {
		if key.sandbox == sandboxID {
			ss.cancel()
			ss.stdin.Close()
			delete(s.sessions, key)
		}
	}
	s.endJail(sandboxID)
}

// defaultError is the daemon's answer to an error no handler sorted: a
// 500 with the message and no code, path or time (the default handler of
// apps/daemon/pkg/toolbox/server.go's error middleware).
func defaultError(w http.ResponseWriter, message string) {
	writeJSON(w, http.StatusInternalServerError, map[string]any{
		"statusCode": http.StatusInternalServerError,
		"message":    message,
		"timestamp":  time.Time{},
		"path":       "",
	})
}

// combinedOutput tells whether the caller gets the log with its stream
// prefixes taken out: a caller that names no SDK version does, unless it
// asks for split output (IsCombinedOutput in apps/daemon/pkg/session/common.go;
// the fake plays a caller without an SDK version).
func combinedOutput(r *http.Request) bool {
	return r.Header.Get("X-Daytona-Split-Output") != "true"
}

// makeOwnedDir makes a folder owned by the user commands run as.
func makeOwnedDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return ownByJailUser(dir)
}
