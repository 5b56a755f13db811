package e2btest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// NewSandbox is the create's body (NewSandbox in spec/openapi.yml).
type NewSandbox struct {
	TemplateID    string            `json:"templateID"`
	Timeout       *int              `json:"timeout"`
	AutoPause     bool              `json:"autoPause"`
	Metadata      map[string]string `json:"metadata"`
	EnvVars       map[string]string `json:"envVars"`
	AllowInternet *bool             `json:"allow_internet_access"`
	Network       *struct {
		AllowOut []string `json:"allowOut"`
		DenyOut  []string `json:"denyOut"`
	} `json:"network"`
}

// The states of SandboxState in spec/openapi.yml.
const (
	stateRunning = "running"
	statePaused  = "paused"
)

// domain is the fake's sandbox domain, which the client's envd URL
// override makes it never dial.
const domain = "e2b.invalid"

// serveControlPlane routes the control plane's calls, each behind the
// X-API-Key header (ApiKeyAuth).
func (s *Server) serveControlPlane(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-API-Key") != s.opts.Key {
		// packages/auth/pkg/auth/internal/middleware/middleware.go
		apiError(w, http.StatusUnauthorized, "Invalid API key, please visit https://e2b.dev/docs/api-key for more information.")
		return
	}
	s.mu.Lock()
	limited := s.rateLimited
	s.mu.Unlock()
	if limited {
		// packages/api/internal/middleware/ratelimit/ratelimit.go
		w.Header().Set("Retry-After", "7")
		apiError(w, http.StatusTooManyRequests, "Rate limit exceeded")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) == 1 && parts[0] == "sandboxes" && r.Method == http.MethodPost:
		s.Count(OpCreate)
		s.create(w, r)
	case len(parts) == 2 && parts[0] == "v2" && parts[1] == "sandboxes" && r.Method == http.MethodGet:
		s.Count(OpList)
		s.list(w, r)
	case len(parts) == 2 && parts[0] == "sandboxes" && r.Method == http.MethodGet:
		s.Count(OpGet)
		s.get(w, parts[1])
	case len(parts) == 2 && parts[0] == "sandboxes" && r.Method == http.MethodDelete:
		s.Count(OpKill)
		s.kill(w, parts[1])
	case len(parts) == 3 && parts[0] == "sandboxes" && r.Method == http.MethodPost:
		s.sandboxAction(w, r, parts[1], parts[2])
	case len(parts) == 3 && parts[0] == "sandboxes" && parts[2] == "network" && r.Method == http.MethodPut:
		s.Count(OpNetwork)
		s.updateNetwork(w, r, parts[1])
	case len(parts) == 3 && parts[0] == "templates" && parts[1] == "aliases" && r.Method == http.MethodGet,
		len(parts) == 2 && parts[0] == "templates" && r.Method == http.MethodGet:
		s.Count(OpTemplate)
		s.template(w, parts[len(parts)-1])
	case len(parts) == 2 && parts[0] == "templates" && r.Method == http.MethodDelete:
		s.Count(OpTemplate)
		s.deleteTemplate(w, parts[1])
	default:
		apiError(w, http.StatusNotFound, "no route for %s %s", r.Method, r.URL.Path)
	}
}

func (s *Server) sandboxAction(w http.ResponseWriter, r *http.Request, id, action string) {
	switch action {
	case "pause":
		s.Count(OpPause)
		s.pause(w, id)
	case "connect":
		s.Count(OpConnect)
		s.connect(w, r, id)
	case "timeout":
		s.Count(OpTimeout)
		s.setTimeout(w, r, id)
	case "snapshots":
		s.Count(OpSnapshot)
		s.snapshot(w, id)
	default:
		apiError(w, http.StatusNotFound, "no route for %s", r.URL.Path)
	}
}

func newID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// create makes a sandbox (POST /sandboxes): 404 for a template it cannot
// find (cache/templates/errors.go), 429 past the team's concurrency
// (orchestrator/create_instance.go), 201 with the sandbox once it runs.
func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var body NewSandbox
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.TemplateID == "" {
		apiError(w, http.StatusBadRequest, "Error when parsing request: templateID is required")
		return
	}
	s.mu.Lock()
	s.created = append(s.created, body)
	from, ok := s.templates[body.TemplateID]
	running := 0
	for _, b := range s.sandboxes {
		if b.state == stateRunning {
			running++
		}
	}
	limit := s.concurrency
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusNotFound, "template '%s' not found", body.TemplateID)
		return
	}
	if limit < 0 || limit > 0 && running >= limit {
		limit = max(limit, running)
		apiError(w, http.StatusTooManyRequests, "you have reached the maximum number of concurrent E2B sandboxes (%d). If you need more, please visit 'https://e2b.dev/docs/billing'", limit)
		return
	}
	timeout := 15
	if body.Timeout != nil {
		timeout = *body.Timeout
	}
	id := newID("i")
	b := &sandbox{id: id, template: body.TemplateID, token: newID("ea_"), state: stateRunning, autoPause: body.AutoPause, env: body.EnvVars,
		endAt: time.Now().Add(time.Duration(timeout) * time.Second), dir: s.boxDir(id), procs: map[uint32]*process{}}
	if err := os.MkdirAll(b.home(), 0o755); err != nil {
		apiError(w, http.StatusInternalServerError, "%s", err)
		return
	}
	if from != "" {
		if err := os.RemoveAll(b.home()); err == nil {
			err = fakekit.CopyTree(from, b.home())
		}
	}
	b.network.AllowInternet, b.metadata, b.startedAt = body.AllowInternet, body.Metadata, time.Now()
	if body.Network != nil {
		b.network.AllowOut, b.network.DenyOut = body.Network.AllowOut, body.Network.DenyOut
	}
	s.mu.Lock()
	s.sandboxes[id] = b
	lose := s.loseCreates > 0
	if lose {
		s.loseCreates--
	}
	s.mu.Unlock()
	if lose {
		// A gateway that gave up on the call the control plane carried out.
		http.Error(w, "upstream request timeout", http.StatusGatewayTimeout)
		return
	}
	writeJSON(w, http.StatusCreated, b.answer())
}

// answer is the Sandbox of spec/openapi.yml.
func (b *sandbox) answer() map[string]any {
	return map[string]any{"templateID": b.template, "sandboxID": b.id, "clientID": "6532622b", "envdVersion": "0.2.0",
		"envdAccessToken": b.token, "domain": domain}
}

// lookup is the sandbox, or a 404 in the control plane's words.
func (s *Server) lookup(w http.ResponseWriter, id string) *sandbox {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.sandboxes[id]
	if b == nil {
		apiError(w, http.StatusNotFound, "sandbox \"%s\" doesn't exist or you don't have access to it", id)
	}
	return b
}

func (s *Server) get(w http.ResponseWriter, id string) {
	b := s.lookup(w, id)
	if b == nil {
		return
	}
	s.mu.Lock()
	detail := map[string]any{"templateID": b.template, "sandboxID": b.id, "clientID": "6532622b", "envdVersion": "0.2.0",
		"startedAt": time.Now().Format(time.RFC3339), "endAt": b.endAt.Format(time.RFC3339), "state": b.state,
		"cpuCount": 2, "memoryMB": 512, "diskSizeMB": 1024, "domain": domain}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, detail)
}

// kill removes the sandbox (DELETE): 204, or 404 for one unknown.
func (s *Server) kill(w http.ResponseWriter, id string) {
	if s.lookup(w, id) == nil {
		return
	}
	s.mu.Lock()
	b := s.sandboxes[id]
	delete(s.sandboxes, id)
	s.mu.Unlock()
	if b != nil {
		b.killAll()
		_ = os.RemoveAll(b.dir)
	}
	w.WriteHeader(http.StatusNoContent)
}

// pause pauses a running sandbox: 204; 409 for one paused already.
func (s *Server) pause(w http.ResponseWriter, id string) {
	b := s.lookup(w, id)
	if b == nil {
		return
	}
	s.mu.Lock()
	paused := b.state == statePaused
	b.state = statePaused
	s.mu.Unlock()
	if paused {
		apiError(w, http.StatusConflict, "Sandbox %s is already paused", id)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// connect resumes a paused sandbox (201) or answers a running one (200);
// either way its lifetime ends no sooner than timeout from now.
func (s *Server) connect(w http.ResponseWriter, r *http.Request, id string) {
	var body struct {
		Timeout *int `json:"timeout"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Timeout == nil {
		apiError(w, http.StatusBadRequest, "Error when parsing request: timeout is required")
		return
	}
	b := s.lookup(w, id)
	if b == nil {
		return
	}
	s.mu.Lock()
	status := http.StatusOK
	if b.state == statePaused {
		b.state, status = stateRunning, http.StatusCreated
	}
	if end := time.Now().Add(time.Duration(*body.Timeout) * time.Second); end.After(b.endAt) {
		b.endAt = end
	}
	ans := b.answer()
	s.mu.Unlock()
	writeJSON(w, status, ans)
}

// setTimeout sets the lifetime to end timeout from now, shorter or longer.
func (s *Server) setTimeout(w http.ResponseWriter, r *http.Request, id string) {
	var body struct {
		Timeout *int `json:"timeout"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Timeout == nil {
		apiError(w, http.StatusBadRequest, "Error when parsing request: timeout is required")
		return
	}
	b := s.lookup(w, id)
	if b == nil {
		return
	}
	s.mu.Lock()
	b.endAt = time.Now().Add(time.Duration(*body.Timeout) * time.Second)
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// snapshot keeps the sandbox's files as a new template (201 SnapshotInfo).
func (s *Server) snapshot(w http.ResponseWriter, id string) {
	b := s.lookup(w, id)
	if b == nil {
		return
	}
	tmpl := newID("snap")
	dir := filepath.Join(s.root, "templates", tmpl)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		apiError(w, http.StatusInternalServerError, "%s", err)
		return
	}
	if err := fakekit.CopyTree(b.home(), dir); err != nil {
		apiError(w, http.StatusInternalServerError, "%s", err)
		return
	}
	snapshotID := tmpl + ":default"
	s.mu.Lock()
	s.templates[snapshotID] = dir
	s.templates[tmpl] = dir
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"snapshotID": snapshotID, "names": []string{"team/" + snapshotID}})
}

func (s *Server) template(w http.ResponseWriter, id string) {
	if !s.HasTemplate(id) {
		apiError(w, http.StatusNotFound, "template '%s' not found", id)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"templateID": id, "public": false})
}

func (s *Server) deleteTemplate(w http.ResponseWriter, id string) {
	s.mu.Lock()
	dir, ok := s.templates[id]
	if ok && id != BaseTemplate {
		delete(s.templates, id)
		delete(s.templates, id+":default")
	}
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusNotFound, "template '%s' not found", id)
		return
	}
	if dir != "" {
		_ = os.RemoveAll(dir)
	}
	w.WriteHeader(http.StatusNoContent)
}
