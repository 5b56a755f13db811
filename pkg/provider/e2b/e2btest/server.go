// Package e2btest is a fake E2B for tests: its control plane (the routes
// of spec/openapi.yml in e2b-dev/infra that the client calls) and envd,
// the daemon of every sandbox (packages/envd: Connect-RPC process and
// filesystem services, HTTP /files). A sandbox's files are a folder of
// this host and its commands run for real, as host processes in that
// folder, so its working folder is that folder's host path.
package e2btest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// DefaultKey is the API key the fake accepts unless told otherwise.
const DefaultKey = "e2b_fake0123456789abcdef"

// BaseTemplate is the template every fake knows.
const BaseTemplate = "base"

// The operations the fake counts.
const (
	OpCreate   = "create"
	OpGet      = "get"
	OpKill     = "kill"
	OpPause    = "pause"
	OpConnect  = "connect"
	OpTimeout  = "timeout"
	OpSnapshot = "snapshot"
	OpTemplate = "template"
	OpEnvd     = "envd"
	OpNetwork  = "network"
)

// Options shape a fake.
type Options struct {
	// Key is the API key it accepts ("": DefaultKey).
	Key string
}

// Server is a fake E2B: a control plane and the envd of every sandbox,
// behind one proxy that routes by the E2b-Sandbox-Id header.
type Server struct {
	fakekit.Counter[string]
	opts Options
	root string
	api  *httptest.Server
	envd *httptest.Server

	mu        sync.Mutex
	sandboxes map[string]*sandbox
	templates map[string]string // template id → the folder its sandboxes start from ("": empty)
	next      int
	// concurrency is the team's limit on running sandboxes (0: none).
	concurrency int
	// rateLimited answers every control-plane call with the rate limiter's 429.
	rateLimited bool
	// loseCreates is how many creates to come are carried out with their
	// answer lost.
	loseCreates int
	// created is every create's body, in order.
	created []NewSandbox
}

// Start runs a fake until the test ends.
func Start(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Key == "" {
		opts.Key = DefaultKey
	}
	s := &Server{opts: opts, root: t.TempDir(), sandboxes: map[string]*sandbox{}, templates: map[string]string{BaseTemplate: ""}}
	s.api = httptest.NewServer(http.HandlerFunc(s.serveControlPlane))
	s.envd = httptest.NewServer(http.HandlerFunc(s.serveEnvd))
	t.Cleanup(func() {
		s.api.Close()
		s.envd.Close()
		s.mu.Lock()
		boxes := make([]*sandbox, 0, len(s.sandboxes))
		for _, b := range s.sandboxes {
			boxes = append(boxes, b)
		}
		s.mu.Unlock()
		for _, b := range boxes {
			b.killAll()
		}
	})
	return s
}

// URL is the control plane's.
func (s *Server) URL() string { return s.api.URL }

// EnvdURL is the proxy in front of every sandbox's envd.
func (s *Server) EnvdURL() string { return s.envd.URL }

// SetConcurrency limits the sandboxes running at once (0: no limit; -1:
// as many as run now), as a team's plan does.
func (s *Server) SetConcurrency(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.concurrency = n
}

// SetRateLimited makes the control plane refuse every call as its rate
// limiter does (429 "Rate limit exceeded", Retry-After), or stop refusing.
func (s *Server) SetRateLimited(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rateLimited = on
}

// Created returns the bodies of the creates so far.
func (s *Server) Created() []NewSandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]NewSandbox(nil), s.created...)
}

// State is a sandbox's state as GET /sandboxes/{id} gives it, "" when it
// does not exist.
func (s *Server) State(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.sandboxes[id]; b != nil {
		return b.state
	}
	return ""
}

// EndAt is when the sandbox's lifetime ends.
func (s *Server) EndAt(id string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.sandboxes[id]; b != nil {
		return b.endAt
	}
	return time.Time{}
}

// HasTemplate says whether the template (a snapshot's too) exists.
func (s *Server) HasTemplate(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.templates[id]
	return ok
}

// Snapshots counts the snapshots kept (templates besides the base one).
func (s *Server) Snapshots() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id := range s.templates {
		if id != BaseTemplate && !strings.HasSuffix(id, ":default") {
			n++
		}
	}
	return n
}

// Expire ends the sandbox's lifetime: paused when it was created with
// autoPause, else killed (and gone).
func (s *Server) Expire(id string) error {
	s.mu.Lock()
	b := s.sandboxes[id]
	if b == nil {
		s.mu.Unlock()
		return fmt.Errorf("no sandbox %s", id)
	}
	if b.autoPause {
		b.state = statePaused
		s.mu.Unlock()
		return nil
	}
	delete(s.sandboxes, id)
	s.mu.Unlock()
	b.killAll()
	return os.RemoveAll(b.dir)
}

// SetAutoPause changes what the end of the sandbox's lifetime does.
func (s *Server) SetAutoPause(id string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.sandboxes[id]; b != nil {
		b.autoPause = on
	}
}

// apiError is the control plane's error body (Error in spec/openapi.yml).
func apiError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]any{"code": status, "message": fmt.Sprintf(format, args...)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) boxDir(id string) string { return filepath.Join(s.root, id) }

// LoseCreates carries out the next n creates but answers each with a
// gateway's 504, as when the answer is lost on its way back.
func (s *Server) LoseCreates(n int) {
	s.mu.Lock()
	s.loseCreates = n
	s.mu.Unlock()
}
