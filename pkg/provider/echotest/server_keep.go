package echotest

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Pausing and snapshots. Echo is a protocol of its own, not a model of
// another service's; its shape follows OpenSandbox's lifecycle API
// (server/src/api/lifecycle.py: POST /sandboxes/{id}/pause and /resume, a
// paused sandbox's state "Paused") and its snapshots (a sandbox created
// with a snapshot's id starts from it).

func (s *Server) pause(w http.ResponseWriter, _ *http.Request, b *box) {
	s.mu.Lock()
	b.transit.Set(statePaused)
	b.State = statePaused
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) resume(w http.ResponseWriter, _ *http.Request, b *box) {
	s.mu.Lock()
	b.transit.Go(s.StartLooks, stateStarting, stateReady)
	b.State = b.transit.State
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Paused reports whether instance id is paused.
func (s *Server) Paused(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.all[id]
	return b != nil && b.transit.State == statePaused
}

// Vanish removes instance id without a call, as an expiry at the provider would.
func (s *Server) Vanish(id string) {
	s.mu.Lock()
	b := s.all[id]
	delete(s.all, id)
	s.mu.Unlock()
	if b != nil {
		_ = os.RemoveAll(b.root)
	}
}

// Snapshots returns how many snapshots are kept.
func (s *Server) Snapshots() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.snapshots)
}

func (s *Server) snapshotDir(id string) string { return filepath.Join(s.dir, "snapshots", id) }

func (s *Server) takeSnapshot(w http.ResponseWriter, _ *http.Request, b *box) {
	snap := snapshot{ID: "snap-" + randomHex(6), TakenAt: time.Now().UTC()}
	if err := copyFolder(b.root, s.snapshotDir(snap.ID)); err != nil {
		refuse(w, http.StatusInternalServerError, codeFailed, err.Error())
		return
	}
	s.mu.Lock()
	s.snapshots[snap.ID] = snap
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, snap)
}

// restore fills a new instance's folder from a snapshot, or refuses.
func (s *Server) restore(w http.ResponseWriter, id, root string) bool {
	s.mu.Lock()
	_, ok := s.snapshots[id]
	s.mu.Unlock()
	if !ok {
		refuse(w, http.StatusNotFound, codeNoSnapshot, "no snapshot "+id)
		return false
	}
	if err := copyFolder(s.snapshotDir(id), root); err != nil {
		refuse(w, http.StatusInternalServerError, codeFailed, err.Error())
		return false
	}
	return true
}

func (s *Server) deleteSnapshot(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	_, ok := s.snapshots[id]
	delete(s.snapshots, id)
	s.mu.Unlock()
	if !ok {
		refuse(w, http.StatusNotFound, codeNoSnapshot, "no snapshot "+id)
		return
	}
	if err := os.RemoveAll(s.snapshotDir(id)); err != nil {
		refuse(w, http.StatusInternalServerError, codeFailed, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// copyFolder copies what is in from into to, owners and modes kept.
func copyFolder(from, to string) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	return exec.Command("cp", "-a", "--", from+"/.", to).Run()
}
