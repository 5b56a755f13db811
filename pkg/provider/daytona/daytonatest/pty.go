package daytonatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// ptyRoute names a call under /process/pty by the daemon's operationId,
// with the session id in its path (the routes of
// apps/daemon/pkg/toolbox/server.go, handled in
// apps/daemon/pkg/toolbox/process/pty/controller.go).
func ptyRoute(method, sub string) (op, sessionID string) {
	rest, ok := strings.CutPrefix(sub, "/process/pty")
	if !ok {
		return "", ""
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	switch {
	case rest == "" && method == http.MethodGet:
		return OpListPtySessions, ""
	case rest == "" && method == http.MethodPost:
		return OpCreatePtySession, ""
	case len(parts) == 1 && parts[0] != "" && method == http.MethodGet:
		return OpGetPtySession, parts[0]
	case len(parts) == 1 && parts[0] != "" && method == http.MethodDelete:
		return OpDeletePtySession, parts[0]
	case len(parts) == 2 && parts[1] == "connect" && method == http.MethodGet:
		return OpConnectPtySession, parts[0]
	case len(parts) == 2 && parts[1] == "resize" && method == http.MethodPost:
		return OpResizePtySession, parts[0]
	}
	return "", ""
}

// servePTY answers the PTY calls, or gin's bare 404 as a daemon without
// them does (before v0.107.0, and so every daemon without sessions).
func (s *Server) servePTY(w http.ResponseWriter, r *http.Request, sub string, box sandboxBox) {
	if s.opts.NoPTY || s.opts.NoSessions {
		noRoute(w)
		return
	}
	op, id := ptyRoute(r.Method, sub)
	switch op {
	case OpCreatePtySession:
		s.createPTY(w, r, box)
	case OpListPtySessions:
		writeJSON(w, http.StatusOK, map[string]any{"sessions": s.listPTYs(box)})
	case OpGetPtySession:
		if ps := s.pty(box, id); ps != nil {
			writeJSON(w, http.StatusOK, ps.Info())
			return
		}
		ptyError(w, http.StatusNotFound, "PTY session not found")
	case OpDeletePtySession:
		if ps := s.dropPTY(box, id, nil); ps != nil {
			ps.kill()
			writeJSON(w, http.StatusOK, map[string]string{"message": "PTY session deleted"})
			return
		}
		ptyError(w, http.StatusNotFound, "PTY session not found")
	case OpConnectPtySession:
		s.connectPTY(w, r, box, id)
	case OpResizePtySession:
		s.resizePTY(w, r, box, id)
	}
}

// ptyError is how the PTY handlers answer an error: gin's c.JSON with
// {"error": …}, not the error middleware's body (controller.go).
func ptyError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}

// ptyInfo is the daemon's PtySessionInfo (types.go).
type ptyInfo struct {
	ID        string            `json:"id"`
	Cwd       string            `json:"cwd"`
	Envs      map[string]string `json:"envs"`
	Cols      uint16            `json:"cols"`
	Rows      uint16            `json:"rows"`
	CreatedAt time.Time         `json:"createdAt"`
	Active    bool              `json:"active"`
	LazyStart bool              `json:"lazyStart"`
}

// ptyCreateRequest is the daemon's PtyCreateRequest (types.go).
type ptyCreateRequest struct {
	ID        string            `json:"id"`
	Cwd       string            `json:"cwd,omitempty"`
	Envs      map[string]string `json:"envs,omitempty"`
	Cols      *uint16           `json:"cols"`
	Rows      *uint16           `json:"rows"`
	LazyStart bool              `json:"lazyStart,omitempty"`
}

// ptyMaxSize is the largest size the daemon takes, "to avoid ioctl errors".
const ptyMaxSize = 1000

// createPTY makes a PTY session and, unless it starts lazily, starts its
// shell: 201 {"sessionId"}; a missing id is a 400, an id in use a 409, a
// size over 1000 a 400, a shell that cannot start a 500 (CreatePTYSession
// in controller.go). The defaults: the daemon's work folder,
// TERM=xterm-256color, 80x24.
func (s *Server) createPTY(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	var req ptyCreateRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ptyError(w, http.StatusBadRequest, err.Error())
		return
	}
	if req.ID == "" {
		ptyError(w, http.StatusBadRequest, "session ID is required")
		return
	}
	if s.pty(box, req.ID) != nil {
		ptyError(w, http.StatusConflict, fmt.Sprintf("PTY session with ID '%s' already exists", req.ID))
		return
	}
	if req.Cwd == "" {
		req.Cwd = WorkDir
	}
	if req.Envs == nil {
		req.Envs = map[string]string{}
	}
	if req.Envs["TERM"] == "" {
		req.Envs["TERM"] = "xterm-256color"
	}
	cols, rows := uint16(80), uint16(24)
	if req.Cols != nil {
		cols = *req.Cols
	}
	if req.Rows != nil {
		rows = *req.Rows
	}
	if cols > ptyMaxSize {
		ptyError(w, http.StatusBadRequest, "invalid value for cols - must be less than 1000")
		return
	}
	if rows > ptyMaxSize {
		ptyError(w, http.StatusBadRequest, "invalid value for rows - must be less than 1000")
		return
	}
	ps := s.newPTY(box, ptyInfo{ID: req.ID, Cwd: req.Cwd, Envs: req.Envs, Cols: cols, Rows: rows,
		CreatedAt: time.Now(), LazyStart: req.LazyStart})
	if !req.LazyStart {
		if err := ps.start(); err != nil {
			s.dropPTY(box, req.ID, ps)
			ptyError(w, http.StatusInternalServerError, "failed to start PTY session")
			return
		}
	}
	writeJSON(w, http.StatusCreated, map[string]string{"sessionId": req.ID})
}

// connectPTY upgrades to a WebSocket first, from any origin, then finds
// the session, starting a lazy one's shell: a session it cannot use gets
// one text message, {"type":"control","status":"error","error":…}, and
// the connection dropped without a close frame (ConnectPTYSession in
// controller.go, VerifyPTYSessionReady in manager.go).
func (s *Server) connectPTY(w http.ResponseWriter, r *http.Request, box sandboxBox, id string) {
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ps, err := s.readyPTY(box, id)
	if err != nil {
		msg, _ := json.Marshal(map[string]any{"type": "control", "status": "error",
			"error": "Failed to connect to PTY session: " + err.Error()})
		_ = conn.Write(r.Context(), websocket.MessageText, msg)
		_ = conn.CloseNow()
		return
	}
	ps.attach(r.Context(), conn)
}

// readyPTY is a session whose shell runs, started now when it starts
// lazily; one whose shell has ended is refused (VerifyPTYSessionReady in
// manager.go).
func (s *Server) readyPTY(box sandboxBox, id string) (*ptySession, error) {
	ps := s.pty(box, id)
	if ps == nil {
		return nil, fmt.Errorf("PTY session %s not found", id)
	}
	info := ps.Info()
	if !info.Active {
		if !info.LazyStart {
			return nil, fmt.Errorf("PTY session '%s' has terminated and is no longer available", id)
		}
		if err := ps.start(); err != nil {
			return nil, fmt.Errorf("failed to start PTY session: %v", err)
		}
	}
	return ps, nil
}

// resizePTY sets a session's size: both fields are required, from 1 to
// 1000 (gin's binding answers a 400 naming the field); a session that is
// missing or whose shell has ended is a 410; 200 with the session's info
// (ResizePTYSession in controller.go, VerifyPTYSessionForResize in manager.go).
func (s *Server) resizePTY(w http.ResponseWriter, r *http.Request, box sandboxBox, id string) {
	var req struct {
		Cols uint16 `json:"cols"`
		Rows uint16 `json:"rows"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		ptyError(w, http.StatusBadRequest, err.Error())
		return
	}
	for _, f := range []struct {
		name  string
		value uint16
	}{{"Cols", req.Cols}, {"Rows", req.Rows}} {
		switch {
		case f.value == 0:
			ptyError(w, http.StatusBadRequest, fmt.Sprintf("Key: 'PTYResizeRequest.%s' Error:Field validation for '%s' failed on the 'required' tag", f.name, f.name))
			return
		case f.value > ptyMaxSize:
			ptyError(w, http.StatusBadRequest, fmt.Sprintf("Key: 'PTYResizeRequest.%s' Error:Field validation for '%s' failed on the 'max' tag", f.name, f.name))
			return
		}
	}
	ps := s.pty(box, id)
	if ps == nil {
		ptyError(w, http.StatusGone, fmt.Sprintf("PTY session %s not found", id))
		return
	}
	if info := ps.Info(); !info.Active && !info.LazyStart {
		ptyError(w, http.StatusGone, fmt.Sprintf("PTY session '%s' has terminated and cannot be resized", id))
		return
	}
	if err := ps.resize(req.Cols, req.Rows); err != nil {
		ptyError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, ps.Info())
}

// pty returns a sandbox's PTY session, or nil.
func (s *Server) pty(box sandboxBox, id string) *ptySession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ptys[sessionKey{box.id, id}]
}

// dropPTY takes a session out of the daemon's list and returns it; with
// only set, only when the list still holds that one.
func (s *Server) dropPTY(box sandboxBox, id string, only *ptySession) *ptySession {
	key := sessionKey{box.id, id}
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.ptys[key]
	if ps == nil || (only != nil && ps != only) {
		return nil
	}
	delete(s.ptys, key)
	return ps
}

func (s *Server) listPTYs(box sandboxBox) []ptyInfo {
	s.mu.Lock()
	var found []*ptySession
	for key, ps := range s.ptys {
		if key.sandbox == box.id {
			found = append(found, ps)
		}
	}
	s.mu.Unlock()
	infos := make([]ptyInfo, 0, len(found))
	for _, ps := range found {
		infos = append(infos, ps.Info())
	}
	return infos
}

// endPTYs kills a sandbox's PTY sessions, which its daemon took with it.
// Caller holds s.mu.
func (s *Server) endPTYs(sandboxID string) {
	for key, ps := range s.ptys {
		if key.sandbox == sandboxID {
			delete(s.ptys, key)
			ps.kill()
		}
	}
}
