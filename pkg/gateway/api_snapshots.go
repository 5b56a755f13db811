package gateway

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/gateway/wire"
)

// snapshotLocation names a snapshot's bucket and prefix.
type snapshotLocation = wire.SnapshotLocation

// resolveLocation fills the location from the sandbox when the caller gave no bucket, and checks it.
func resolveLocation(l snapshotLocation, sb *sandbox) (snapshotLocation, error) {
	if l.GCSBucket == "" && sb != nil {
		info := sb.view(false)
		l = snapshotLocation{GCSBucket: info.GCSBucket, SnapshotPrefix: info.SnapshotPrefix}
	}
	if l.GCSBucket == "" {
		return l, failure(http.StatusUnprocessableEntity, auxilia.CodeInvalid,
			"no snapshot bucket: the sandbox has none and the call named none (gcs_bucket)").about(wire.SubjectBucket)
	}
	if errs := append(checkBucket(l.GCSBucket), checkPrefix(l.SnapshotPrefix)...); len(errs) > 0 {
		return l, invalid(errs)
	}
	return l, nil
}

// SnapshotInfo is a snapshot as stored.
type SnapshotInfo = wire.SnapshotInfo

// saveSnapshot exports the workspace as a tar object in the bucket.
func (s *Server) saveSnapshot(w http.ResponseWriter, r *http.Request) error {
	sb, err := s.lookup(r)
	if err != nil {
		return err
	}
	var loc snapshotLocation
	if err := decodeJSON(w, r, &loc, true); err != nil {
		return err
	}
	if loc, err = resolveLocation(loc, sb); err != nil {
		return err
	}
	sb.view(true)
	tmp, err := os.CreateTemp(s.dirOf("staging"), "snapshot-*.tar")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	stats, err := sb.user.Archive(sb.workspace(), tmp, archiveLimits(s.cfg.MaxSnapshotBytes))
	if err != nil {
		return archiveFailure(err)
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = tmp.Seek(0, io.SeekStart)
	}
	if err != nil {
		return err
	}
	object := snapshotObject(loc.SnapshotPrefix, sb.info.ID)
	obj, err := s.store.Put(r.Context(), loc.GCSBucket, object, tmp, size)
	if err != nil {
		return storageFailure(err, loc.GCSBucket, object)
	}
	s.log.Info("saved snapshot", "id", sb.info.ID, "bucket", loc.GCSBucket, "object", object, "bytes", size)
	writeJSON(w, http.StatusOK, SnapshotInfo{URI: "gs://" + loc.GCSBucket + "/" + object, Bucket: loc.GCSBucket,
		Object: object, Size: size, Generation: obj.Generation, Entries: stats.Entries})
	return nil
}

// statSnapshot says whether a sandbox's snapshot is in the bucket, and
// its size; the sandbox need not be live when the query names the bucket.
func (s *Server) statSnapshot(w http.ResponseWriter, r *http.Request) error {
	sb, _ := s.sandboxes.get(r.PathValue("id"))
	q := r.URL.Query()
	loc, err := resolveLocation(snapshotLocation{GCSBucket: q.Get("gcs_bucket"), SnapshotPrefix: q.Get("snapshot_prefix")}, sb)
	if err != nil {
		return err
	}
	object := snapshotObject(loc.SnapshotPrefix, r.PathValue("id"))
	body, info, err := s.store.Get(r.Context(), loc.GCSBucket, object)
	if errors.Is(err, ErrObjectNotFound) {
		return failure(http.StatusNotFound, auxilia.CodeNotFound, "no snapshot at gs://"+loc.GCSBucket+"/"+object).about(wire.SubjectSnapshot)
	} else if err != nil {
		return storageFailure(err, loc.GCSBucket, object)
	}
	body.Close()
	writeJSON(w, http.StatusOK, SnapshotInfo{URI: "gs://" + loc.GCSBucket + "/" + object, Bucket: loc.GCSBucket,
		Object: object, Size: info.Size, Generation: info.Generation})
	return nil
}

// deleteSnapshot removes a sandbox's snapshot; the sandbox need not be live
// when the query names the bucket. Idempotent.
func (s *Server) deleteSnapshot(w http.ResponseWriter, r *http.Request) error {
	sb, _ := s.sandboxes.get(r.PathValue("id"))
	q := r.URL.Query()
	loc, err := resolveLocation(snapshotLocation{GCSBucket: q.Get("gcs_bucket"), SnapshotPrefix: q.Get("snapshot_prefix")}, sb)
	if err != nil {
		return err
	}
	object := snapshotObject(loc.SnapshotPrefix, r.PathValue("id"))
	if err := s.store.Delete(r.Context(), loc.GCSBucket, object); err != nil && !errors.Is(err, ErrObjectNotFound) {
		return storageFailure(err, loc.GCSBucket, object)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) dirOf(kind string) string { return filepath.Join(s.cfg.DataDir, kind) }

// storageFailure words a Cloud Storage failure for the caller.
func storageFailure(err error, bucket, object string) error {
	where := "gs://" + bucket + "/" + object
	switch {
	case errors.Is(err, ErrStorageDenied):
		return failure(http.StatusBadGateway, auxilia.CodeForbidden,
			"Cloud Storage refused the gateway's service identity for "+where+": "+err.Error()).about(wire.SubjectBucket)
	case errors.Is(err, ErrObjectNotFound):
		return failure(http.StatusBadGateway, auxilia.CodeNotFound, "Cloud Storage has no bucket "+bucket+": "+err.Error()).about(wire.SubjectBucket)
	default:
		return failure(http.StatusBadGateway, auxilia.CodeUnavailable, "Cloud Storage failed for "+where+": "+err.Error()).about(wire.SubjectStorage)
	}
}
