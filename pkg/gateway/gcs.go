package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"time"

	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// StorageClient is a Cloud Storage client with the configuration's
// endpoint and credentials: Application Default Credentials unless the
// configuration gives a token or none. It reads through the JSON API, as it
// writes, so that one endpoint serves both.
func (c Config) StorageClient(ctx context.Context) (*storage.Client, error) {
	opts := []option.ClientOption{storage.WithJSONReads()}
	if c.GCSEndpoint != DefaultGCSEndpoint {
		opts = append(opts, option.WithEndpoint(c.GCSEndpoint+"/storage/v1/"))
	}
	switch c.GCSAuth {
	case "static":
		opts = append(opts, option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.GCSToken, TokenType: "Bearer"})))
	case "none":
		opts = append(opts, option.WithoutAuthentication())
	}
	return storage.NewClient(ctx, opts...)
}

// GCS is a SnapshotStore on Cloud Storage, through Google's own client:
// uploads are resumable past ChunkSize and checked with CRC32C both ways.
type GCS struct {
	Client *storage.Client
	// ChunkSize is the most an upload sends in one request
	// (0 = storage.Writer's default, 16 MiB); larger objects go in
	// chunks, each retried on its own.
	ChunkSize int
}

// gcsAttempts is how often a call is tried when Cloud Storage answers 429 or 5xx, as Google advises.
const gcsAttempts = 3

// castagnoli is the CRC32C table Cloud Storage checks objects with.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// object is bucket/name, retried on transient failures, uploads included:
// a snapshot replaces its object whole, so sending it again is safe.
func (g *GCS) object(bucket, name string) *storage.ObjectHandle {
	return g.Client.Bucket(bucket).Object(name).Retryer(
		storage.WithPolicy(storage.RetryAlways),
		storage.WithMaxAttempts(gcsAttempts),
		storage.WithBackoff(gax.Backoff{Initial: 500 * time.Millisecond, Max: 5 * time.Second, Multiplier: 2}))
}

// Put uploads the object, with its CRC32C for Cloud Storage to check.
func (g *GCS) Put(ctx context.Context, bucket, name string, body io.ReadSeeker, size int64) (ObjectInfo, error) {
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.LimitReader(body, size)); err != nil {
		return ObjectInfo{}, err
	}
	if _, err := body.Seek(0, io.SeekStart); err != nil {
		return ObjectInfo{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // abandons the upload when it fails before Close
	w := g.object(bucket, name).NewWriter(ctx)
	w.ContentType = "application/x-tar"
	if g.ChunkSize > 0 {
		w.ChunkSize = g.ChunkSize // 0 would send the object in one request, never retried
	}
	w.CRC32C, w.SendCRC32C = sum.Sum32(), true
	if _, err := io.Copy(w, io.LimitReader(body, size)); err != nil {
		_ = w.Close()
		return ObjectInfo{}, storageError(err)
	}
	if err := w.Close(); err != nil {
		return ObjectInfo{}, storageError(err)
	}
	return objectInfo(w.Attrs().Bucket, w.Attrs().Name, w.Attrs().Size, w.Attrs().Generation), nil
}

// Get opens the object's bytes; the reader checks their CRC32C at the end.
func (g *GCS) Get(ctx context.Context, bucket, name string) (io.ReadCloser, ObjectInfo, error) {
	r, err := g.object(bucket, name).NewReader(ctx)
	if err != nil {
		return nil, ObjectInfo{}, storageError(err)
	}
	return r, objectInfo(bucket, name, r.Attrs.Size, r.Attrs.Generation), nil
}

// Delete removes the object.
func (g *GCS) Delete(ctx context.Context, bucket, name string) error {
	return storageError(g.object(bucket, name).Delete(ctx))
}

func objectInfo(bucket, name string, size, generation int64) ObjectInfo {
	return ObjectInfo{Bucket: bucket, Name: name, Size: size, Generation: strconv.FormatInt(generation, 10)}
}

// storageError names what the gateway tells apart: a missing object or
// bucket, and refused credentials.
func storageError(err error) error {
	if err == nil {
		return nil
	}
	var api *googleapi.Error
	switch {
	case errors.Is(err, storage.ErrObjectNotExist), errors.Is(err, storage.ErrBucketNotExist):
		return fmt.Errorf("%w: %v", ErrObjectNotFound, err)
	case errors.As(err, &api) && api.Code == http.StatusNotFound:
		return fmt.Errorf("%w: %s", ErrObjectNotFound, apiMessage(api))
	case errors.As(err, &api) && (api.Code == http.StatusUnauthorized || api.Code == http.StatusForbidden):
		return fmt.Errorf("%w: %s", ErrStorageDenied, apiMessage(api))
	}
	return fmt.Errorf("cloud storage: %w", err)
}

// apiMessage is Cloud Storage's own words for an error: the client leaves
// them in the body of a failed download.
func apiMessage(api *googleapi.Error) string {
	if api.Message != "" {
		return api.Message
	}
	var doc struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(api.Body), &doc) == nil && doc.Error.Message != "" {
		return doc.Error.Message
	}
	return http.StatusText(api.Code)
}
