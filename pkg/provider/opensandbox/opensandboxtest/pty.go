package opensandboxtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
)

// execd's terminal API (components/execd/PTY.md; routes in
// components/execd/pkg/web/router.go, the /pty group; handlers in
// pkg/web/controller/pty_controller.go and pty_ws.go).

// ptyRoute finds the /pty routes whose path holds a session id
// (gin's /pty/:sessionId and /pty/:sessionId/ws).
func ptyRoute(method, p string) (execdRoute, string, bool) {
	rest, ok := strings.CutPrefix(p, "/pty/")
	if !ok || rest == "" {
		return execdRoute{}, "", false
	}
	id, sub, nested := strings.Cut(rest, "/")
	switch {
	case !nested && method == http.MethodGet:
		return execdRoute{OpPTYStatus, ptyStatus}, id, true
	case !nested && method == http.MethodDelete:
		return execdRoute{OpPTYDelete, deletePTY}, id, true
	case sub == "ws" && method == http.MethodGet:
		return execdRoute{OpPTYAttach, attachPTY}, id, true
	}
	return execdRoute{}, "", false
}

type createPTYRequest struct {
	Cwd     string `json:"cwd"`
	Command string `json:"command"`
}

// createPTY makes a session (CreatePTYSession): bash does not start yet.
// The working directory is expanded as execd expands paths and made if it
// is missing.
func createPTY(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	var req createPTYRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil && !errors.Is(err, io.EOF) {
		execdError(w, http.StatusBadRequest, "INVALID_REQUEST_BODY", fmt.Sprintf("error parsing request: %v", err))
		return
	}
	if req.Command != "" {
		execdError(w, http.StatusBadRequest, "NOT_SUPPORTED", "the fake execd's terminals run bash only, not a command")
		return
	}
	id := newID() // runtime.NewPTYSessionID: a UUID
	s, err := sb.newPTY(id, req.Cwd)
	if err != nil {
		// execd answers the error, then (a bug of pty_controller.go, which
		// does not return) the session id too, in the same body; the
		// session was never stored.
		execdError(w, http.StatusInternalServerError, "RUNTIME_ERROR", fmt.Sprintf("error creating pty session: %v", err))
		_ = json.NewEncoder(w).Encode(map[string]string{"session_id": id})
		return
	}
	execdJSON(w, http.StatusCreated, map[string]string{"session_id": s.id})
}

// newPTY stores a session whose bash will start in cwd, made if missing
// (Controller.CreatePTYSession). It dies with the sandbox.
func (sb *sandbox) newPTY(id, cwd string) (*ptySession, error) {
	resolved, err := sb.expand(cwd, nil)
	if err != nil {
		return nil, fmt.Errorf("error resolving PTY session work directory: %w", err)
	}
	dir := sb.root // execd's own working directory, /
	if resolved != "" {
		root, err := openRoot(sb)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		if err := root.MkdirAll(rel(resolved), 0o777); err != nil {
			return nil, fmt.Errorf("error creating PTY session work directory: %w", err)
		}
		if err := sb.own(root, rel(resolved)); err != nil {
			return nil, err
		}
		dir = filepath.Join(sb.root, rel(resolved))
	}
	env, err := sb.ptyEnvironment()
	if err != nil {
		return nil, err
	}
	s := newPTYSession(id, dir, env)
	sb.mu.Lock()
	if sb.ptys == nil {
		sb.ptys = map[string]*ptySession{}
	}
	sb.ptys[id] = s
	sb.mu.Unlock()
	context.AfterFunc(sb.ctx, s.close)
	return s, nil
}

func (sb *sandbox) pty(id string) *ptySession {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.ptys[id]
}

func ptyNotFound(w http.ResponseWriter, id string) {
	execdError(w, http.StatusNotFound, "CONTEXT_NOT_FOUND", "pty session "+id+" not found")
}

// ptyStatus answers GET /pty/:sessionId (GetPTYSessionStatus).
func ptyStatus(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("sessionId")
	s := sb.pty(id)
	if s == nil {
		ptyNotFound(w, id)
		return
	}
	s.outMu.Lock()
	offset := s.replay.total
	s.outMu.Unlock()
	execdJSON(w, http.StatusOK, map[string]any{"session_id": id, "running": s.running(), "output_offset": offset})
}

// deletePTY kills a session's bash and forgets it (DeletePTYSession):
// 200 with no body.
func deletePTY(_ *Server, sb *sandbox, w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("sessionId")
	sb.mu.Lock()
	s := sb.ptys[id]
	delete(sb.ptys, id)
	sb.mu.Unlock()
	if s == nil {
		ptyNotFound(w, id)
		return
	}
	s.close()
	w.WriteHeader(http.StatusOK)
}

// Terminals says, for tests, how many terminal sessions sandbox id holds
// and in how many bash still runs.
func (s *Server) Terminals(id string) (sessions, running int) {
	sb, ok := s.find(id)
	if !ok {
		return 0, 0
	}
	sb.mu.Lock()
	all := make([]*ptySession, 0, len(sb.ptys))
	for _, p := range sb.ptys {
		all = append(all, p)
	}
	sb.mu.Unlock()
	for _, p := range all {
		if p.running() {
			running++
		}
	}
	return len(all), running
}
