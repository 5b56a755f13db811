// Package gateway is Auxilia's Cloud Run sandbox gateway: an HTTP service
// that creates sandboxes, runs commands and moves files in them through a
// Launcher, and saves or restores each sandbox's /workspace as a tar object
// in Cloud Storage. docs/cloudrun-gateway.md describes its API.
package gateway

import (
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// Limits of the API.
const (
	maxJSONBody      = 1 << 20
	maxFileBytes     = 64 << 20
	maxRestoreUpload = 30 << 20
	maxStreamOutput  = 2 << 20
	maxListEntries   = 10000
	minExecTimeout   = 1
	maxExecTimeout   = 3600
	defaultTimeout   = 1800
)

// Options are the gateway's collaborators.
type Options struct {
	Launcher Launcher
	Store    SnapshotStore
	Logger   *slog.Logger
}

// Server is the gateway's HTTP API.
type Server struct {
	cfg       Config
	launcher  Launcher
	store     SnapshotStore
	log       *slog.Logger
	sandboxes *registry
	health    *launcherHealth
	handler   http.Handler

	stopReaper chan struct{}
	reaperDone chan struct{}
	closeOnce  sync.Once
}

// New prepares the data folder, finds the sandboxes a previous run left
// there, and starts the idle reaper. Close stops it.
func New(cfg Config, opts Options) (*Server, error) {
	if opts.Launcher == nil || opts.Store == nil {
		return nil, errors.New("gateway: a launcher and a snapshot store are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxSnapshotBytes <= 0 {
		cfg.MaxSnapshotBytes = 1 << 30
	}
	for _, sub := range []string{"staging", "trash"} {
		dir := filepath.Join(cfg.DataDir, sub)
		_ = jailfs.RemoveAll(dir) // whatever an earlier run left half done
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	ids := cfg.JailIDs
	if ids.Count == 0 {
		ids = bubblewrap.HostIDs()
	}
	reg, err := newRegistry(filepath.Join(cfg.DataDir, "sandboxes"), newJailUsers(ids), cfg.MaxSandboxes)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg: cfg, launcher: opts.Launcher, store: opts.Store, log: opts.Logger, sandboxes: reg,
		health:     &launcherHealth{launcher: opts.Launcher},
		stopReaper: make(chan struct{}), reaperDone: make(chan struct{}),
	}
	s.handler = s.routes()
	go s.reap()
	return s, nil
}

// Handler serves the API.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the idle reaper and ends running commands; sandbox folders stay.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.stopReaper)
		<-s.reaperDone
		s.sandboxes.closeAll()
	})
	return nil
}

// handlerFunc is a handler that returns its failure instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// endpoint is one path of the API and its methods.
type endpoint struct {
	path    string
	methods map[string]handlerFunc
}

// endpoints is the authenticated API; docs/cloudrun-gateway.yaml describes each.
func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{"/sandboxes", map[string]handlerFunc{"GET": s.listSandboxes, "POST": s.createSandbox}},
		{"/sandboxes/{id}", map[string]handlerFunc{"GET": s.getSandbox, "DELETE": s.deleteSandbox}},
		{"/sandboxes/{id}/keepalive", map[string]handlerFunc{"POST": s.keepAlive}},
		{"/sandboxes/{id}/exec", map[string]handlerFunc{"POST": s.execute}},
		{"/sandboxes/{id}/files", map[string]handlerFunc{"DELETE": s.removeFile}},
		{"/sandboxes/{id}/files/content", map[string]handlerFunc{"GET": s.readFile, "PUT": s.writeFile}},
		{"/sandboxes/{id}/files/info", map[string]handlerFunc{"GET": s.statFile}},
		{"/sandboxes/{id}/files/list", map[string]handlerFunc{"GET": s.listFiles}},
		{"/sandboxes/{id}/snapshot", map[string]handlerFunc{"GET": s.statSnapshot, "POST": s.saveSnapshot, "DELETE": s.deleteSnapshot}},
		{"/sandboxes/{id}/restore", map[string]handlerFunc{"POST": s.restore}},
		{"/sandboxes/{id}/terminal", map[string]handlerFunc{"GET": s.terminal}},
	}
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.getHealth)
	for _, e := range s.endpoints() {
		s.route(mux, e.path, e.methods)
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, failure(http.StatusNotFound, auxilia.CodeNotFound, "no such route: "+r.URL.Path).about(wire.SubjectRoute))
	})
	return s.authenticate(mux)
}

// route registers a path's methods, each behind the id check, and a 405 for any other method.
func (s *Server) route(mux *http.ServeMux, path string, methods map[string]handlerFunc) {
	allowed := make([]string, 0, len(methods))
	for method, h := range methods {
		allowed = append(allowed, method)
		mux.HandleFunc(method+" "+path, func(w http.ResponseWriter, r *http.Request) {
			if id := r.PathValue("id"); strings.Contains(path, "{id}") {
				if err := checkID(id); err != nil {
					writeProblem(w, err)
					return
				}
			}
			if err := h(w, r); err != nil {
				s.logFailure(r, err)
				writeProblem(w, err)
			}
		})
	}
	sort.Strings(allowed)
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeProblem(w, failure(http.StatusMethodNotAllowed, auxilia.CodeMethodNotAllowed,
			r.Method+" is not allowed here; use "+strings.Join(allowed, " or ")))
	})
}

// logFailure records server-side failures; callers' mistakes are not worth a log line.
func (s *Server) logFailure(r *http.Request, err error) {
	var ae *apiError
	if errors.As(err, &ae) && ae.status < 500 {
		return
	}
	s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "error", err)
}

// reap removes sandboxes idle longer than the configured time.
func (s *Server) reap() {
	defer close(s.reaperDone)
	if s.cfg.IdleTTL <= 0 {
		<-s.stopReaper
		return
	}
	tick := time.NewTicker(min(s.cfg.IdleTTL/4, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-s.stopReaper:
			return
		case <-tick.C:
			for _, id := range s.sandboxes.idle(time.Now().Add(-s.cfg.IdleTTL)) {
				s.sandboxes.remove(id, s.scratch("trash"))
				s.log.Info("removed idle sandbox", "id", id)
			}
		}
	}
}

// scratch returns a fresh path in one of the gateway's own scratch folders.
func (s *Server) scratch(kind string) string {
	return filepath.Join(s.cfg.DataDir, kind, randomName(""))
}
