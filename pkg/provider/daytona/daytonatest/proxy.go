package daytonatest

import (
	"net/http"
	"net/http/httputil"
	"strings"
)

// Messages of Daytona's toolbox proxy and runner, in their own words.
const (
	msgBearerInvalid    = "unauthorized: authentication failed: Bearer token is invalid"
	msgNoAuthentication = "unauthorized: missing authentication: provide a preview access token (via header, query parameter, or cookie) or use an API key or JWT"
	msgNotStarted       = "bad request: no IP address found. Is the Sandbox started?"
	msgNoContainer      = "not found: sandbox container not found: Error response from daemon: No such container: "
)

// withoutContainer are the states in which the runner has no container for
// a sandbox, so the toolbox answers 404; in other states but started it has
// a container without an address, and answers 400.
var withoutContainer = map[string]bool{
	"creating": true, "pulling_snapshot": true, "restoring": true,
	"archived": true, "archiving": true, "destroying": true,
}

// serveToolboxProxy answers {toolboxProxyUrl}/{sandboxId}/… as Daytona's
// proxy and runner do: it checks that the key may use the sandbox (a
// sandbox Daytona does not have is a 401, like a bad key), that the sandbox
// has a running container, and records activity; then the toolbox answers.
func (s *Server) serveToolboxProxy(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/toolbox/")
	id, sub, hasSub := strings.Cut(rest, "/")
	if !ok || !hasSub || id == "" {
		toolboxError(w, r, r.URL.Path, http.StatusNotFound, "not found: not found")
		return
	}
	sub = "/" + sub
	op := toolboxOp(r.Method, sub)

	s.mu.Lock()
	s.Count(op)
	if f, faulted := s.faults.Take(op); faulted {
		s.mu.Unlock()
		writeFault(w, r, f, true)
		return
	}
	s.autoStop()
	sb := s.find(id)
	switch {
	case r.Header.Get("Authorization") == "":
		s.mu.Unlock()
		toolboxError(w, r, r.URL.Path, http.StatusUnauthorized, msgNoAuthentication)
		return
	case s.authorized(r) == nil || sb == nil:
		s.mu.Unlock()
		toolboxError(w, r, r.URL.Path, http.StatusUnauthorized, msgBearerInvalid)
		return
	case sb.State != "started" && withoutContainer[sb.State]:
		s.mu.Unlock()
		toolboxError(w, r, runnerPath(id, sub), http.StatusNotFound, msgNoContainer+id)
		return
	case sb.State != "started":
		s.mu.Unlock()
		toolboxError(w, r, runnerPath(id, sub), http.StatusBadRequest, msgNotStarted)
		return
	}
	if r.Header.Get("X-Daytona-Skip-Last-Activity-Update") != "true" {
		sb.lastActivity = s.now()
	}
	box := sandboxBox{id: sb.id, home: sb.home, tmp: sb.tmp}
	s.mu.Unlock()

	// The proxy does not pass the API key on to the sandbox.
	r.Header.Del("Authorization")
	if s.forward != nil {
		s.forwardToolbox(w, r, sub)
		return
	}
	s.serveToolbox(w, r, op, sub, box)
}

// runnerPath is the path on the runner, to which the proxy hands toolbox calls.
func runnerPath(id, sub string) string { return "/sandboxes/" + id + "/toolbox" + sub }

// forwardToolbox hands the call to a real Daytona daemon.
func (s *Server) forwardToolbox(w http.ResponseWriter, r *http.Request, sub string) {
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(s.forward)
			pr.Out.URL.Path = strings.TrimSuffix(s.forward.Path, "/") + sub
			pr.Out.URL.RawPath = ""
		},
		Transport: s.forwardTransport,
	}
	proxy.ServeHTTP(w, r)
}

// toolboxOp names a toolbox call by the daemon's operationId.
func toolboxOp(method, sub string) string {
	routes := map[string]string{
		"GET /work-dir":         OpGetWorkDir,
		"GET /user-home-dir":    OpGetUserHomeDir,
		"GET /project-dir":      OpGetUserHomeDir,
		"GET /version":          OpGetVersion,
		"POST /process/execute": OpExecuteCommand,
		"GET /files":            OpListFiles,
		"GET /files/":           OpListFiles,
		"GET /files/info":       OpGetFileInfo,
		"GET /files/download":   OpDownloadFile,
		"POST /files/upload":    OpUploadFile,
		"POST /files/folder":    OpCreateFolder,
		"DELETE /files":         OpDeleteFile,
		"DELETE /files/":        OpDeleteFile,
		"GET /files/search":     OpSearchFiles,
		"GET /files/find":       OpFindInFiles,
		"POST /files/replace":   OpReplaceInFiles,
	}
	if op, ok := routes[method+" "+sub]; ok {
		return op
	}
	if op, _, _ := sessionRoute(method, sub); op != "" {
		return op
	}
	if op, _ := ptyRoute(method, sub); op != "" {
		return op
	}
	return OpOther
}
