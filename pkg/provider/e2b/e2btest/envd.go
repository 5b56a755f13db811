package e2btest

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// sandbox is one of the fake's sandboxes.
type sandbox struct {
	id, template, token string
	state               string
	autoPause           bool
	env                 map[string]string // envVars: every process's defaults
	endAt               time.Time
	dir                 string // its folder on this host; its home is inside
	network             Network
	metadata            map[string]string
	startedAt           time.Time

	procMu sync.Mutex
	procs  map[uint32]*process
}

// home is the sandbox's working folder: the default user's home
// (/home/user in E2B's templates), as a path of this host.
func (b *sandbox) home() string { return filepath.Join(b.dir, "home", "user") }

// killAll ends every process the sandbox's envd started, with their sessions.
func (b *sandbox) killAll() {
	b.procMu.Lock()
	procs := make([]*process, 0, len(b.procs))
	for _, p := range b.procs {
		procs = append(procs, p)
	}
	b.procMu.Unlock()
	for _, p := range procs {
		p.killSession()
	}
	for _, p := range procs {
		<-p.ended
	}
}

// connectError is a Connect error; status is its HTTP status for a unary call.
type connectError struct {
	status  int
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *connectError) Error() string { return e.Code + ": " + e.Message }

func errorf(code string, format string, args ...any) *connectError {
	status := map[string]int{"not_found": 404, "invalid_argument": 400, "unauthenticated": 401,
		"permission_denied": 403, "unimplemented": 501, "internal": 500, "failed_precondition": 400}[code]
	return &connectError{status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// serveEnvd is the proxy in front of every sandbox's envd: it routes by
// E2b-Sandbox-Id and E2b-Sandbox-Port (packages/shared/pkg/proxy/host.go);
// envd checks the sandbox's token in X-Access-Token
// (packages/envd/internal/permissions/authenticate.go).
func (s *Server) serveEnvd(w http.ResponseWriter, r *http.Request) {
	s.Count(OpEnvd)
	id := r.Header.Get("E2b-Sandbox-Id")
	s.mu.Lock()
	b := s.sandboxes[id]
	running := b != nil && b.state == stateRunning
	s.mu.Unlock()
	switch {
	case r.Header.Get("E2b-Sandbox-Port") != "49983":
		http.Error(w, "Missing header: E2b-Sandbox-Port", http.StatusBadRequest)
		return
	case !running:
		// A sandbox the proxy cannot route to, gone or paused (without
		// auto-resume): template/sandbox_not_found.go, as JSON.
		writeJSON(w, http.StatusBadGateway, map[string]any{"sandboxId": id, "message": "The sandbox was not found", "code": http.StatusBadGateway})
		return
	case r.Header.Get("X-Access-Token") != b.token:
		// Before any route, as envd's middleware (internal/api/auth.go):
		// the /files dialect's error, on Connect's routes too.
		apiError(w, http.StatusUnauthorized, "unauthorized access, please provide a valid access token or method signing if supported")
		return
	}
	switch r.URL.Path {
	case "/files":
		s.files(w, r, b)
	case "/process.Process/Start":
		s.startProcess(w, r, b)
	case "/process.Process/SendSignal":
		unary(w, r, b.sendSignal)
	case "/process.Process/SendInput":
		unary(w, r, b.sendInput)
	case "/process.Process/Update":
		unary(w, r, b.update)
	case "/filesystem.Filesystem/Stat":
		unary(w, r, b.stat)
	case "/filesystem.Filesystem/ListDir":
		unary(w, r, b.listDir)
	case "/filesystem.Filesystem/Remove":
		unary(w, r, b.remove)
	default:
		writeConnectError(w, r, errorf("unimplemented", "%s is not implemented", r.URL.Path))
	}
}

// unary serves a Connect unary call with the JSON codec.
func unary[In any](w http.ResponseWriter, r *http.Request, handle func(In) (any, error)) {
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		http.Error(w, "unsupported content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	var in In
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeConnectError(w, r, errorf("invalid_argument", "unmarshal message: %s", err))
		return
	}
	out, err := handle(in)
	if err != nil {
		writeConnectError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func writeConnectError(w http.ResponseWriter, r *http.Request, err error) {
	var ce *connectError
	if !errors.As(err, &ce) {
		ce = errorf("internal", "%s", err)
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/connect+") {
		w.Header().Set("Content-Type", "application/connect+json")
		w.WriteHeader(http.StatusOK)
		writeEnd(w, ce)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ce.status)
	_ = json.NewEncoder(w).Encode(ce)
}

// The envelope's flags (Connect's Streaming-Response).
const flagEndStream = 0x02

func writeEnvelope(w io.Writer, flags byte, v any) error {
	msg, err := json.Marshal(v)
	if err != nil {
		return err
	}
	head := make([]byte, 5)
	head[0] = flags
	binary.BigEndian.PutUint32(head[1:], uint32(len(msg)))
	if _, err := w.Write(append(head, msg...)); err != nil {
		return err
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// writeEnd ends a stream, with its error if it failed.
func writeEnd(w io.Writer, err *connectError) {
	end := map[string]any{}
	if err != nil {
		end["error"] = err
	}
	_ = writeEnvelope(w, flagEndStream, end)
}

// readEnvelope reads a streaming call's one request message.
func readEnvelope(r io.Reader, v any) error {
	head := make([]byte, 5)
	if _, err := io.ReadFull(r, head); err != nil {
		return err
	}
	if head[0] != 0 {
		return fmt.Errorf("flags %#x on a request", head[0])
	}
	msg := make([]byte, binary.BigEndian.Uint32(head[1:]))
	if _, err := io.ReadFull(r, msg); err != nil {
		return err
	}
	return json.Unmarshal(msg, v)
}

// resolve is a sandbox path as a path of this host: relative ones (and
// the empty one) are in the home (ExpandAndResolve in
// packages/envd/internal/permissions/path.go); the fake's envd reaches
// only its sandbox's own folder.
func (b *sandbox) resolve(p string) (string, error) {
	if p == "" || p == "~" {
		return b.home(), nil
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = rest
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.home(), p)
	}
	p = filepath.Clean(p)
	if p != b.dir && !strings.HasPrefix(p, b.dir+string(filepath.Separator)) {
		return "", errorf("permission_denied", "path '%s' is outside this fake sandbox's folder", p)
	}
	return p, nil
}
