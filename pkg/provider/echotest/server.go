package echotest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// Op is one of the server's operations, as it counts them.
type Op string

// The server's operations.
const (
	OpList   Op = "list"
	OpCreate Op = "create"
	OpGet    Op = "get"
	OpDelete Op = "delete"
	OpExec   Op = "exec"
	OpStat   Op = "stat"
	OpLs     Op = "ls"
	OpRead   Op = "read"
	OpWrite  Op = "write"
	OpRemove Op = "remove"
	OpPause  Op = "pause"
	OpResume Op = "resume"
	OpKeep   Op = "snapshot"
	OpForget Op = "forget"
)

// Fault is what an operation suffers instead of behaving.
type Fault int

const (
	// Refuse answers 503 without doing anything.
	Refuse Fault = iota + 1
	// LoseAnswer does the work, then closes the connection without an answer.
	LoseAnswer
)

// Server is a fake echo server on loopback: instances are folders, and
// commands run in a bubblewrap jail whose working folder is the
// instance's. Inject faults with Faults; count calls with Calls.
type Server struct {
	fakekit.Counter[Op]
	Faults fakekit.Faults[Op, Fault]

	// URL is where it answers; Token is the bearer it takes.
	URL, Token string
	// StartLooks is how many looks a new instance stays starting.
	StartLooks int
	// Latency is added to every call, as a remote provider's round trip (benchmarks).
	Latency time.Duration

	dir string // where the instances' folders are
	mu  sync.Mutex
	all map[string]*box
	// snapshots are folders kept by id, under dir/snapshots.
	snapshots map[string]snapshot
}

// box is one instance: its state on its way to ready, and its folder.
type box struct {
	instance
	transit fakekit.Transit
	root    string // host folder seen at WorkDir
}

// NewServer starts a server for the test, stopped when it ends.
func NewServer(t testing.TB) *Server {
	s := &Server{Token: "echo-" + randomHex(8), StartLooks: 2, dir: t.TempDir(), all: map[string]*box{}, snapshots: map[string]snapshot{}}
	mux := http.NewServeMux()
	s.handle(mux, "GET /instances", OpList, s.list)
	s.handle(mux, "POST /instances", OpCreate, s.create)
	s.handle(mux, "GET /instances/{id}", OpGet, s.withBox(s.get))
	s.handle(mux, "DELETE /instances/{id}", OpDelete, s.withBox(s.delete))
	s.handle(mux, "POST /instances/{id}/exec", OpExec, s.withBox(s.exec))
	s.handle(mux, "GET /instances/{id}/stat", OpStat, s.withBox(inFolder(stat)))
	s.handle(mux, "GET /instances/{id}/list", OpLs, s.withBox(inFolder(list)))
	s.handle(mux, "GET /instances/{id}/content", OpRead, s.withBox(inFolder(read)))
	s.handle(mux, "PUT /instances/{id}/content", OpWrite, s.withBox(inFolder(write)))
	s.handle(mux, "DELETE /instances/{id}/content", OpRemove, s.withBox(inFolder(remove)))
	s.handle(mux, "POST /instances/{id}/pause", OpPause, s.withBox(s.pause))
	s.handle(mux, "POST /instances/{id}/resume", OpResume, s.withBox(s.resume))
	s.handle(mux, "POST /instances/{id}/snapshots", OpKeep, s.withBox(s.takeSnapshot))
	s.handle(mux, "DELETE /snapshots/{id}", OpForget, s.deleteSnapshot)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Instances returns how many instances live.
func (s *Server) Instances() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.all)
}

// handle serves op at pattern: counted, behind the token, and faulted
// when a fault is due.
func (s *Server) handle(mux *http.ServeMux, pattern string, op Op, h http.HandlerFunc) {
	mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		s.Count(op)
		time.Sleep(s.Latency)
		if got := r.Header.Get("Authorization"); got != "Bearer "+s.Token {
			refuse(w, http.StatusUnauthorized, codeUnauthorized, fmt.Sprintf("the token in %q is not known", got))
			return
		}
		fault, _ := s.Faults.Take(op)
		switch fault {
		case Refuse:
			refuse(w, http.StatusServiceUnavailable, codeFailed, "injected: "+string(op)+" is unavailable")
		case LoseAnswer:
			h(httptest.NewRecorder(), r)
			fakekit.Drop(w)
		default:
			h(w, r)
		}
	})
}

// withBox hands h the instance the route names, or refuses a gone one.
func (s *Server) withBox(h func(http.ResponseWriter, *http.Request, *box)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		b := s.all[r.PathValue("id")]
		s.mu.Unlock()
		if b == nil {
			refuse(w, http.StatusNotFound, codeNoInstance, "no instance "+r.PathValue("id"))
			return
		}
		h(w, r, b)
	}
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	want := r.URL.Query().Get(labelInstance)
	s.mu.Lock()
	defer s.mu.Unlock()
	answer := listAnswer{Instances: []instance{}}
	for _, b := range s.all {
		if want == "" || b.Labels[labelInstance] == want {
			answer.Instances = append(answer.Instances, b.instance)
		}
	}
	writeJSON(w, http.StatusOK, answer)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		refuse(w, http.StatusBadRequest, codeBadRequest, err.Error())
		return
	}
	if !path.IsAbs(req.WorkDir) || path.Clean(req.WorkDir) != req.WorkDir || req.WorkDir == "/" {
		refuse(w, http.StatusBadRequest, codeBadRequest, fmt.Sprintf("work_dir %q is not an absolute folder below /", req.WorkDir))
		return
	}
	b := &box{instance: instance{ID: "echo-" + randomHex(6), WorkDir: req.WorkDir, Labels: req.Labels}}
	b.root = filepath.Join(s.dir, b.ID)
	if err := makeOwnDir(b.root); err != nil {
		refuse(w, http.StatusInternalServerError, codeFailed, err.Error())
		return
	}
	if req.SnapshotID != "" && !s.restore(w, req.SnapshotID, b.root) {
		_ = os.RemoveAll(b.root)
		return
	}
	b.transit.Go(s.StartLooks, stateStarting, stateReady)
	b.State = b.transit.State
	s.mu.Lock()
	s.all[b.ID] = b
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, b.instance)
}

func (s *Server) get(w http.ResponseWriter, _ *http.Request, b *box) {
	s.mu.Lock()
	b.State, _ = b.transit.Look()
	seen := b.instance
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, seen)
}

func (s *Server) delete(w http.ResponseWriter, _ *http.Request, b *box) {
	s.mu.Lock()
	delete(s.all, b.ID)
	s.mu.Unlock()
	if err := os.RemoveAll(b.root); err != nil {
		refuse(w, http.StatusInternalServerError, codeFailed, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// makeOwnDir makes an instance's folder, owned by whom its commands run as.
func makeOwnDir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	uid, gid := bubblewrap.Jail{}.User()
	return os.Chown(dir, uid, gid)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func refuse(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, refusal{Code: code, Message: message})
}
