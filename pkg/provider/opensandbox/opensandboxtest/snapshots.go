package opensandboxtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// The snapshot operations.
const (
	OpSnapshot       Op = "create snapshot"
	OpGetSnapshot    Op = "get snapshot"
	OpDeleteSnapshot Op = "delete snapshot"
)

// snapshot is a sandbox's files as they were when it was taken, as the
// Docker runtime commits a container to an image
// (server/opensandbox_server/services/docker/snapshot_runtime.py).
type snapshot struct {
	id, sandboxID, name string
	createdAt, readyAt  time.Time
	files               string // a copy of the sandbox's root
}

// The snapshot states (server/opensandbox_server/services/snapshot_models.py).
const (
	snapshotCreating = "Creating"
	snapshotReady    = "Ready"
)

type apiSnapshot struct {
	ID        string    `json:"id"`
	SandboxID string    `json:"sandboxId"`
	Name      string    `json:"name,omitempty"`
	Status    apiStatus `json:"status"`
	CreatedAt string    `json:"createdAt"`
}

// snapshotRoutes adds the snapshot API beside the lifecycle one
// (server/opensandbox_server/api/lifecycle.py, "Snapshot Operations").
func (s *Server) snapshotRoutes(mux *http.ServeMux, prefix string) {
	mux.Handle("POST "+prefix+"/sandboxes/{id}/snapshots", s.api(OpSnapshot, s.createSnapshot))
	mux.Handle("GET "+prefix+"/snapshots/{id}", s.api(OpGetSnapshot, s.getSnapshot))
	mux.Handle("DELETE "+prefix+"/snapshots/{id}", s.api(OpDeleteSnapshot, s.deleteSnapshot))
}

// Snapshots lists the ids of the snapshots the server holds.
func (s *Server) Snapshots() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.snapshots))
	for id := range s.snapshots {
		ids = append(ids, id)
	}
	return ids
}

func (sn *snapshot) state(now time.Time) apiStatus {
	if now.Before(sn.readyAt) {
		return apiStatus{State: snapshotCreating, Reason: "snapshot_accepted", Message: "Snapshot creation accepted.",
			LastTransitionAt: apiTime(sn.createdAt)}
	}
	return apiStatus{State: snapshotReady, Reason: "snapshot_runtime_ready", Message: "Docker snapshot image created successfully.",
		LastTransitionAt: apiTime(sn.readyAt)}
}

func (sn *snapshot) describe(now time.Time) apiSnapshot {
	return apiSnapshot{ID: sn.id, SandboxID: sn.sandboxID, Name: sn.name, Status: sn.state(now), CreatedAt: apiTime(sn.createdAt)}
}

// createSnapshot answers as PersistedSnapshotService.create_snapshot
// (server/opensandbox_server/services/snapshot_service.py): the sandbox
// must exist and be Running, a runtime without snapshots answers 501, and
// the accepted snapshot is answered Creating, whatever comes next.
func (s *Server) createSnapshot(w http.ResponseWriter, r *http.Request, _ Fault) {
	id := r.PathValue("id")
	sb, ok := s.find(id)
	now := time.Now()
	switch {
	case !ok:
		notFound(w, id)
		return
	case sb.state(now).State != "Running":
		apiError(w, http.StatusConflict, "SNAPSHOT::INVALID_SOURCE_STATE", "Snapshot can only be created from a Running sandbox.")
		return
	case s.opts.NoSnapshots:
		// NoopSnapshotRuntime (services/snapshot_runtime.py).
		apiError(w, http.StatusNotImplemented, "SNAPSHOT::NOT_IMPLEMENTED", "Snapshot management is not implemented for this runtime.")
		return
	}
	var body struct {
		Name string `json:"name"`
	}
	_ = decodeOptional(r, &body)
	sn := &snapshot{id: newID(), sandboxID: id, name: body.Name, createdAt: now, readyAt: now.Add(s.opts.SnapshotFor)}
	sn.files = filepath.Join(s.dir, "snapshots", sn.id)
	if err := fakekit.CopyTree(sb.root, sn.files); err != nil {
		apiError(w, http.StatusInternalServerError, "DOCKER::SNAPSHOT_FAILED", err.Error())
		return
	}
	s.mu.Lock()
	s.snapshots[sn.id] = sn
	s.mu.Unlock()
	w.Header().Set("Location", "/v1/snapshots/"+sn.id)
	accepted := sn.describe(now)
	accepted.Status = apiStatus{State: snapshotCreating, Reason: "snapshot_accepted", Message: "Snapshot creation accepted.",
		LastTransitionAt: apiTime(now)}
	writeJSON(w, http.StatusAccepted, accepted)
}

func (s *Server) findSnapshot(w http.ResponseWriter, id string) (*snapshot, bool) {
	s.mu.Lock()
	sn, ok := s.snapshots[id]
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusNotFound, "SNAPSHOT::NOT_FOUND", fmt.Sprintf("Snapshot %s not found", id))
	}
	return sn, ok
}

func (s *Server) getSnapshot(w http.ResponseWriter, r *http.Request, _ Fault) {
	if sn, ok := s.findSnapshot(w, r.PathValue("id")); ok {
		writeJSON(w, http.StatusOK, sn.describe(time.Now()))
	}
}

// deleteSnapshot answers as PersistedSnapshotService.delete_snapshot: 404
// for an unknown snapshot, 409 while it is being created, else 204.
func (s *Server) deleteSnapshot(w http.ResponseWriter, r *http.Request, _ Fault) {
	sn, ok := s.findSnapshot(w, r.PathValue("id"))
	if !ok {
		return
	}
	if sn.state(time.Now()).State == snapshotCreating {
		apiError(w, http.StatusConflict, "SNAPSHOT::INVALID_STATE", fmt.Sprintf("Snapshot %s is still being created and cannot be deleted", sn.id))
		return
	}
	s.mu.Lock()
	delete(s.snapshots, sn.id)
	s.mu.Unlock()
	_ = os.RemoveAll(sn.files)
	w.WriteHeader(http.StatusNoContent)
}

// restoreFrom resolves a create's snapshotId as
// resolve_sandbox_image_from_request does
// (server/opensandbox_server/services/snapshot_restore.py): 404 for an
// unknown snapshot, 409 for one not Ready. It reports false after answering.
func (s *Server) restoreFrom(w http.ResponseWriter, id string) (*snapshot, bool) {
	sn, ok := s.findSnapshot(w, id)
	if !ok {
		return nil, false
	}
	if sn.state(time.Now()).State != snapshotReady {
		apiError(w, http.StatusConflict, "SNAPSHOT::NOT_READY", fmt.Sprintf("Snapshot %s is not ready for restore.", id))
		return nil, false
	}
	return sn, true
}

// decodeOptional reads an optional JSON body; an empty one is fine.
func decodeOptional(r *http.Request, v any) error {
	b, err := io.ReadAll(r.Body)
	if err != nil || len(b) == 0 {
		return err
	}
	return json.Unmarshal(b, v)
}
