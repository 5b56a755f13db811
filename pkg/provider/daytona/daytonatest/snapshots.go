package daytonatest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider/fakekit"
)

// The snapshot operations, by Daytona's operationIds.
const (
	OpCreateSandboxSnapshot = "createSandboxSnapshot"
	OpGetSnapshot           = "getSnapshot"
	OpRemoveSnapshot        = "removeSnapshot"
)

// snapshot is an image made from a sandbox: its files as they were.
type snapshot struct {
	id, name  string
	createdAt time.Time
	files     string // a copy of the sandbox's home; empty when forwarding to a real daemon
	// sizeGB is the snapshot's size in GiB, nil when unknown (a copy
	// forwarded to a real daemon). Daytona's runner reports the committed
	// image's size as bytes/(1024*1024*1024) (SizeGB in
	// apps/runner/pkg/docker/snapshot_sandbox.go), which
	// persistSnapshotFromSandbox (apps/api/src/sandbox/utils/
	// persist-snapshot-from-sandbox.util.ts) stores as the snapshot's size;
	// here the image is the copied files.
	sizeGB *float64
}

// gibOf is a folder's size in GiB, as Daytona's runner words an image's:
// the bytes of its regular files over 1024³.
func gibOf(dir string) (float64, error) {
	var bytes int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			bytes += info.Size()
		}
		return err
	})
	return float64(bytes) / (1024 * 1024 * 1024), err
}

// createSandboxSnapshot makes a snapshot of a sandbox, as
// createSnapshotFromSandbox in Daytona's
// apps/api/src/sandbox/services/sandbox.service.ts does for a container
// sandbox on a v0 runner: only a started or stopped sandbox, not while it
// changes state; no memory; none without an internal registry in its
// region. It answers at once with the sandbox "snapshotting", and the
// snapshot exists, active, once the sandbox is back in its state.
func (s *Server) createSandboxSnapshot(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sb := s.sandboxOr404(w, r)
	if sb == nil {
		return
	}
	var req struct {
		Name          string `json:"name"`
		IncludeMemory bool   `json:"includeMemory"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Name == "" {
		apiError(w, r, http.StatusBadRequest, "name must be a string")
		return
	}
	switch {
	case sb.State == "error" || sb.State == "build_failed":
		apiError(w, r, http.StatusBadRequest, "Sandbox is in an errored state")
		return
	case sb.State != "started" && sb.State != "stopped":
		apiError(w, r, http.StatusBadRequest, "Sandbox must be in started or stopped state to create a snapshot")
		return
	case sb.Moving():
		apiError(w, r, http.StatusConflict, "Sandbox state change in progress")
		return
	case req.IncludeMemory:
		apiError(w, r, http.StatusBadRequest, "includeMemory is only supported for Windows sandboxes")
		return
	case s.opts.NoSnapshotRegistry:
		apiError(w, r, http.StatusBadRequest, "No internal registry is available for this sandbox region; cannot snapshot a container sandbox")
		return
	}
	made := &snapshot{id: newSandboxID(), name: req.Name, createdAt: s.now()}
	if sb.home != "" {
		made.files = filepath.Join(s.dir, "snapshots", made.id)
		if err := fakekit.CopyTree(sb.home, made.files); err != nil {
			apiError(w, r, http.StatusInternalServerError, "An unexpected error occurred.")
			return
		}
		size, err := gibOf(made.files)
		if err != nil {
			apiError(w, r, http.StatusInternalServerError, "An unexpected error occurred.")
			return
		}
		made.sizeGB = &size
	}
	sb.snapshotting = made
	s.move(sb, sb.desired, "snapshotting", sb.State)
	answer := s.dto(sb)
	answer["state"] = "snapshotting" // the answer is the sandbox as the request left it
	writeJSON(w, http.StatusOK, answer)
}

// snapshotTaken registers the snapshot a sandbox was making, once it is
// back in its state. Caller holds s.mu.
func (s *Server) snapshotTaken(sb *sandbox) {
	if sb.snapshotting == nil || sb.State == "snapshotting" {
		return
	}
	s.snapshots[sb.snapshotting.name] = sb.snapshotting
	sb.snapshotting = nil
}

// findSnapshot finds a snapshot by name, or by id, as
// getSnapshotWithRegions (services/snapshot.service.ts) does.
func (s *Server) findSnapshot(idOrName string) *snapshot {
	if sn := s.snapshots[idOrName]; sn != nil {
		return sn
	}
	for _, sn := range s.snapshots {
		if sn.id == idOrName {
			return sn
		}
	}
	return nil
}

func (s *Server) getSnapshot(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	sn := s.findSnapshot(r.PathValue("id"))
	if sn == nil {
		apiError(w, r, http.StatusNotFound, fmt.Sprintf("Snapshot %s not found", r.PathValue("id")))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": sn.id, "organizationId": "org-test", "general": false, "name": sn.name, "imageName": sn.name,
		"state": "active", "size": sn.sizeGB, "entrypoint": nil, "cpu": sandboxCPU, "gpu": 0, "mem": sandboxMemory,
		"disk": sandboxDisk, "errorReason": nil, "createdAt": isoTime(sn.createdAt), "updatedAt": isoTime(sn.createdAt),
		"lastUsedAt": nil, "regionIds": []string{"us"},
	})
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// removeSnapshot deletes a snapshot by its id (not its name: Daytona's
// controller parses a UUID), as removeSnapshot does.
func (s *Server) removeSnapshot(w http.ResponseWriter, r *http.Request, _ *apiKey) {
	id := r.PathValue("id")
	if !uuidPattern.MatchString(id) {
		apiError(w, r, http.StatusBadRequest, "Validation failed (uuid is expected)")
		return
	}
	sn := s.findSnapshot(id)
	if sn == nil {
		apiError(w, r, http.StatusNotFound, fmt.Sprintf("Snapshot %s not found", id))
		return
	}
	delete(s.snapshots, sn.name)
	if sn.files != "" {
		_ = os.RemoveAll(sn.files)
	}
	w.WriteHeader(http.StatusOK)
}

// SnapshotNames lists the snapshots made from sandboxes, by name.
func (s *Server) SnapshotNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.snapshots))
	for name := range s.snapshots {
		names = append(names, name)
	}
	return names
}
