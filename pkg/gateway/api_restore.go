package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
	"github.com/auxilia/sandboxes/pkg/jailfs"
)

// restoreRequest asks for a restore from the bucket.
type restoreRequest = wire.RestoreRequest

// RestoreResult is the answer of a restore.
type RestoreResult = wire.RestoreResult

// restore replaces a workspace with a tar: the body itself
// (application/x-tar), or the sandbox's snapshot (application/json), which
// also brings back a sandbox the gateway no longer has.
func (s *Server) restore(w http.ResponseWriter, r *http.Request) error {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "application/x-tar":
		return s.restoreUpload(w, r)
	case "application/json", "":
		return s.restoreSnapshot(w, r)
	default:
		return failure(http.StatusUnsupportedMediaType, auxilia.CodeUnsupportedMedia,
			"send a tar as application/x-tar, or {\"source\":\"snapshot\"} as application/json")
	}
}

func (s *Server) restoreUpload(w http.ResponseWriter, r *http.Request) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	if r.ContentLength > maxRestoreUpload {
		return uploadTooLarge()
	}
	// A tar can unpack to more than it reads (sparse files): what it
	// writes is held to the upload cap as well.
	lim := archiveLimits(min(maxRestoreUpload, s.cfg.MaxSnapshotBytes))
	staged, entries, total, err := s.stage(http.MaxBytesReader(w, r.Body, maxRestoreUpload), lim, sb.user)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return uploadTooLarge()
		}
		return err
	}
	if err := sb.replaceWorkspace(staged, s.scratch("trash")); err != nil {
		_ = jailfs.RemoveAll(staged)
		return err
	}
	s.log.Info("restored sandbox from an upload", "id", sb.info.ID, "entries", entries)
	writeJSON(w, http.StatusOK, RestoreResult{Sandbox: sb.view(true), Source: "upload", Entries: entries, Bytes: total})
	return nil
}

func (s *Server) restoreSnapshot(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	var q restoreRequest
	if err := decodeJSON(w, r, &q, false); err != nil {
		return err
	}
	errs := checkSpec(q.SandboxSpec, s.cfg)
	if q.Source != "snapshot" {
		errs = append(errs, FieldError{Field: "source", Message: "must be \"snapshot\" (or send the tar itself as application/x-tar)"})
	}
	if len(errs) > 0 {
		return invalid(errs)
	}
	live, _ := s.sandboxes.get(id)
	if live != nil && !q.Replace {
		return failure(http.StatusConflict, auxilia.CodeConflict, "sandbox "+id+" is live; send \"replace\":true to overwrite its workspace").about(wire.SubjectSandbox)
	}
	loc, err := resolveLocation(snapshotLocation{GCSBucket: q.GCSBucket, SnapshotPrefix: q.SnapshotPrefix}, live)
	if err != nil {
		return err
	}
	// The workspace is unpacked as the user whose commands will use it.
	var user jailfs.User
	if live != nil {
		user = live.user
	} else if user, err = s.sandboxes.users.take(); err != nil {
		return failure(http.StatusServiceUnavailable, auxilia.CodeUnavailable, err.Error()).about(wire.SubjectCapacity)
	}
	uri, staged, entries, total, err := s.stageObject(r.Context(), loc.GCSBucket, snapshotObject(loc.SnapshotPrefix, id), user)
	if err != nil {
		if live == nil {
			s.sandboxes.users.put(user)
		}
		return err
	}
	result := RestoreResult{Source: "snapshot", Snapshot: uri, Entries: entries, Bytes: total}
	status := http.StatusOK
	if live != nil {
		err = live.replaceWorkspace(staged, s.scratch("trash"))
		result.Sandbox = live.view(true)
	} else {
		var sb *sandbox
		sb, err = s.sandboxes.create(s.sandboxInfo(id, q.SandboxSpec), staged, user)
		if errors.Is(err, errSandboxExists) {
			err = failure(http.StatusConflict, auxilia.CodeConflict, "sandbox "+id+" was re-created meanwhile").about(wire.SubjectSandbox)
		} else if err == nil {
			result.Sandbox, result.Recreated, status = sb.view(false), true, http.StatusCreated
			w.Header().Set("Location", "/sandboxes/"+id)
		}
	}
	if err != nil {
		_ = jailfs.RemoveAll(staged)
		return err
	}
	s.log.Info("restored sandbox from its snapshot", "id", id, "snapshot", uri, "recreated", result.Recreated)
	writeJSON(w, status, result)
	return nil
}

// stageObject unpacks a snapshot object into a new folder, as stage does;
// a missing object is 404 not_found about the snapshot.
func (s *Server) stageObject(ctx context.Context, bucket, object string, user jailfs.User) (uri, dir string, entries int, total int64, err error) {
	uri = "gs://" + bucket + "/" + object
	body, info, err := s.store.Get(ctx, bucket, object)
	if errors.Is(err, ErrObjectNotFound) {
		return uri, "", 0, 0, failure(http.StatusNotFound, auxilia.CodeNotFound, "no snapshot at "+uri).about(wire.SubjectSnapshot)
	} else if err != nil {
		return uri, "", 0, 0, storageFailure(err, bucket, object)
	}
	defer body.Close()
	if info.Size > s.cfg.MaxSnapshotBytes {
		return uri, "", 0, 0, failure(http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge,
			fmt.Sprintf("the snapshot %s has %d bytes, more than this gateway restores (%d)", uri, info.Size, s.cfg.MaxSnapshotBytes)).about(wire.SubjectSnapshot)
	}
	dir, entries, total, err = s.stage(io.LimitReader(body, s.cfg.MaxSnapshotBytes), archiveLimits(s.cfg.MaxSnapshotBytes), user)
	return uri, dir, entries, total, err
}

// stage unpacks a tar into a new folder of user's, ready to become a
// workspace, within the limits; on any failure the folder is removed.
func (s *Server) stage(r io.Reader, lim jailfs.Limits, user jailfs.User) (dir string, entries int, total int64, err error) {
	dir = s.scratch("staging")
	if err := makeWorkspace(dir, user); err != nil {
		return "", 0, 0, err
	}
	stats, err := user.Extract(dir, r, lim)
	if err != nil {
		_ = jailfs.RemoveAll(dir)
		return "", stats.Entries, stats.Bytes, archiveFailure(err)
	}
	return dir, stats.Entries, stats.Bytes, nil
}

func uploadTooLarge() error {
	return failure(http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, fmt.Sprintf("restore uploads are limited to %d bytes", maxRestoreUpload))
}

// archiveFailure words the ways a tar can fail for the caller.
func archiveFailure(err error) error {
	var unsafe *jailfs.UnsafeEntryError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return err
	case errors.As(err, &unsafe):
		return failure(http.StatusUnprocessableEntity, auxilia.CodeForbidden, "the archive was refused: "+unsafe.Error()).about(wire.SubjectArchive)
	case errors.Is(err, jailfs.ErrTooLarge):
		return failure(http.StatusRequestEntityTooLarge, auxilia.CodeTooLarge, err.Error()).about(wire.SubjectArchive)
	default:
		return failure(http.StatusUnprocessableEntity, auxilia.CodeInvalid, "the archive could not be unpacked: "+err.Error()).about(wire.SubjectArchive)
	}
}
