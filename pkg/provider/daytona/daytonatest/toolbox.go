package daytonatest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// sandboxBox is what the toolbox needs of a sandbox: its id and host folders.
type sandboxBox struct {
	id, home, tmp string
}

// serveToolbox answers a toolbox call as Daytona's daemon does.
func (s *Server) serveToolbox(w http.ResponseWriter, r *http.Request, op, sub string, box sandboxBox) {
	switch op {
	case OpGetWorkDir, OpGetUserHomeDir:
		writeJSON(w, http.StatusOK, map[string]string{"dir": WorkDir})
	case OpGetVersion:
		writeJSON(w, http.StatusOK, map[string]string{"version": s.daemonVersion()})
	case OpExecuteCommand:
		s.executeCommand(w, r, box)
	case OpListFiles:
		listFiles(w, r, box)
	case OpGetFileInfo:
		getFileInfo(w, r, box)
	case OpDownloadFile:
		downloadFile(w, r, box)
	case OpUploadFile:
		s.uploadFile(w, r, box)
	case OpCreateFolder:
		createFolder(w, r, box)
	case OpDeleteFile:
		deleteFile(w, r, box)
	case OpSearchFiles:
		searchFiles(w, r, box)
	case OpFindInFiles:
		findInFiles(w, r, box)
	case OpReplaceInFiles:
		replaceInFiles(w, r, box)
	case OpCreateSession, OpSessionExecuteCommand, OpGetSessionCommand, OpGetSessionCommandLogs, OpDeleteSession:
		s.serveSession(w, r, sub, box)
	case OpCreatePtySession, OpListPtySessions, OpGetPtySession, OpDeletePtySession, OpConnectPtySession, OpResizePtySession:
		s.servePTY(w, r, sub, box)
	default:
		noRoute(w)
	}
}

// noRoute is gin's answer for a route the daemon does not have.
func noRoute(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte("404 page not found"))
}

// executeRequest is the daemon's ExecuteRequest.
type executeRequest struct {
	Command string            `json:"command"`
	Timeout *uint32           `json:"timeout"`
	Cwd     *string           `json:"cwd"`
	Envs    map[string]string `json:"envs"`
}

// envKey is what the daemon accepts as an environment variable's name.
var envKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// executeCommand runs the command to its end and answers with its exit code
// and its stdout and stderr mixed, whether the caller still waits or not. A non-zero exit is a 200; a command that
// runs out of time is killed and answered with a 408 and none of its output.
func (s *Server) executeCommand(w http.ResponseWriter, r *http.Request, box sandboxBox) {
	var req executeRequest
	const path = "/process/execute"
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		toolboxError(w, r, path, http.StatusBadRequest, fmt.Sprintf("bad request: invalid request body: %s", err))
		return
	}
	if strings.TrimSpace(req.Command) == "" {
		toolboxError(w, r, path, http.StatusBadRequest, "bad request: command cannot be empty or whitespace-only")
		return
	}
	for key := range req.Envs {
		if !envKey.MatchString(key) {
			toolboxError(w, r, path, http.StatusBadRequest, fmt.Sprintf("bad request: invalid environment variable name: '%s'", key))
			return
		}
	}
	s.recordExecute(box.id, req)
	// The daemon's command is not tied to the call: it runs to its end or
	// its timeout though the caller hangs up (exec.Command without a
	// context in apps/daemon/pkg/toolbox/process/execute.go).
	res := s.run(s.life, box, req)
	switch {
	case res.timedOut:
		toolboxError(w, r, path, http.StatusRequestTimeout, "request timeout: command execution timeout")
	default:
		writeJSON(w, http.StatusOK, map[string]any{"exitCode": res.exitCode, "result": res.output})
	}
}

// Executed is one command the fake's toolbox was asked to run.
type Executed struct {
	Sandbox string
	Command string
	Cwd     string // "" when none was sent
	Timeout int    // seconds; -1 when none was sent
}

// Executed lists the commands the fake's toolbox was asked to run, in order.
func (s *Server) Executed() []Executed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Executed(nil), s.executed...)
}

func (s *Server) recordExecute(id string, req executeRequest) {
	e := Executed{Sandbox: id, Command: req.Command, Timeout: -1}
	if req.Cwd != nil {
		e.Cwd = *req.Cwd
	}
	if req.Timeout != nil {
		e.Timeout = int(*req.Timeout)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.executed = append(s.executed, e)
}
