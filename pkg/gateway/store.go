package gateway

import (
	"context"
	"errors"
	"io"
	"regexp"
	"strings"
)

// SnapshotStore keeps workspace archives as objects in buckets.
type SnapshotStore interface {
	// Put stores size bytes from body as bucket/object, replacing any earlier one.
	Put(ctx context.Context, bucket, object string, body io.ReadSeeker, size int64) (ObjectInfo, error)
	// Get opens bucket/object; ErrObjectNotFound when there is none.
	Get(ctx context.Context, bucket, object string) (io.ReadCloser, ObjectInfo, error)
	// Delete removes bucket/object; ErrObjectNotFound when there is none.
	Delete(ctx context.Context, bucket, object string) error
}

// ObjectInfo describes a stored object.
type ObjectInfo struct {
	Bucket     string
	Name       string
	Size       int64
	Generation string
}

// ErrObjectNotFound: the object (or its bucket) does not exist.
var ErrObjectNotFound = errors.New("no such object")

// ErrStorageDenied: the store refused the gateway's credentials.
var ErrStorageDenied = errors.New("the storage refused the gateway's credentials")

// bucketPattern is Cloud Storage's bucket naming rule (dotted names may be longer).
var bucketPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{1,220}[a-z0-9]$`)

// checkBucket validates a snapshot bucket as given by a caller.
func checkBucket(bucket string) []FieldError {
	if !bucketPattern.MatchString(bucket) || strings.Contains(bucket, "..") {
		return []FieldError{{Field: "gcs_bucket", Message: "must be a Cloud Storage bucket name"}}
	}
	return nil
}

// checkPrefix validates a snapshot prefix as given by a caller.
func checkPrefix(prefix string) []FieldError {
	switch {
	case len(prefix) > 512:
		return []FieldError{{Field: "snapshot_prefix", Message: "must be at most 512 characters"}}
	case strings.HasPrefix(prefix, "/"), strings.ContainsAny(prefix, "\r\n\x00"):
		return []FieldError{{Field: "snapshot_prefix", Message: "must be a relative object prefix without line breaks"}}
	}
	return nil
}

// snapshotObject names a sandbox's snapshot inside its bucket.
func snapshotObject(prefix, id string) string { return prefix + id + ".tar" }
