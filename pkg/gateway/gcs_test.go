package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/storage"
	"github.com/auxilia/sandboxes/pkg/gateway/gcstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storageClient is a client of the fake at url, sending token ("" = none)
// as the configuration would have it.
func storageClient(t *testing.T, url, token string) *storage.Client {
	t.Helper()
	cfg := Config{GCSEndpoint: url, GCSAuth: "none"}
	if token != "" {
		cfg.GCSAuth, cfg.GCSToken = "static", token
	}
	client, err := cfg.StorageClient(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	return client
}

func TestGCSAgainstTheFake(t *testing.T) {
	fake := gcstest.NewServer("bkt")
	defer fake.Close()
	fake.Token = "tok"
	store := &GCS{Client: storageClient(t, fake.URL, "tok")}
	ctx := context.Background()

	info, err := store.Put(ctx, "bkt", "deep/name with space.tar", strings.NewReader("tar bytes"), 9)
	require.NoError(t, err)
	assert.Equal(t, ObjectInfo{Bucket: "bkt", Name: "deep/name with space.tar", Size: 9, Generation: info.Generation}, info)
	assert.NotEmpty(t, info.Generation)
	data, ok := fake.Object("bkt", "deep/name with space.tar")
	require.True(t, ok, "the name is sent whole, slashes and all")
	assert.Equal(t, "tar bytes", string(data))

	body, got, err := store.Get(ctx, "bkt", "deep/name with space.tar")
	require.NoError(t, err)
	raw, _ := io.ReadAll(body)
	body.Close()
	assert.Equal(t, "tar bytes", string(raw))
	assert.EqualValues(t, 9, got.Size)

	_, _, err = store.Get(ctx, "bkt", "missing.tar")
	assert.ErrorIs(t, err, ErrObjectNotFound)
	_, err = store.Put(ctx, "nobucket", "x", strings.NewReader(""), 0)
	assert.ErrorIs(t, err, ErrObjectNotFound)

	require.NoError(t, store.Delete(ctx, "bkt", "deep/name with space.tar"))
	assert.ErrorIs(t, store.Delete(ctx, "bkt", "deep/name with space.tar"), ErrObjectNotFound)

	wrong := &GCS{Client: storageClient(t, fake.URL, "nope")}
	_, _, err = wrong.Get(ctx, "bkt", "x")
	assert.ErrorIs(t, err, ErrStorageDenied)
	assert.ErrorContains(t, err, "Invalid Credentials")
}

// A workspace larger than a chunk goes up in a resumable upload, and comes
// back whole.
func TestGCSUploadsLargeObjectsInChunks(t *testing.T) {
	fake := gcstest.NewServer("bkt")
	defer fake.Close()
	store := &GCS{Client: storageClient(t, fake.URL, ""), ChunkSize: 256 << 10}
	data := make([]byte, 1<<20+123)
	_, _ = rand.Read(data)

	info, err := store.Put(context.Background(), "bkt", "big.tar", bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	assert.EqualValues(t, len(data), info.Size)
	assert.GreaterOrEqual(t, fake.Requests.Load(), int64(5), "one request to begin, and one per chunk")
	stored, _ := fake.Object("bkt", "big.tar")
	assert.True(t, bytes.Equal(data, stored))

	body, _, err := store.Get(context.Background(), "bkt", "big.tar")
	require.NoError(t, err)
	back, err := io.ReadAll(body)
	body.Close()
	require.NoError(t, err, "the CRC32C matches")
	assert.True(t, bytes.Equal(data, back))
}

func TestGCSRetriesTransientFailures(t *testing.T) {
	fake := gcstest.NewServer("bkt")
	defer fake.Close()
	var calls, failFirst atomic.Int32
	failFirst.Store(2)
	flaky := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if failFirst.Add(-1) >= 0 {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"code":503,"message":"Backend Error"}}`)
			return
		}
		fake.Config.Handler.ServeHTTP(w, r)
	}))
	defer flaky.Close()
	store := &GCS{Client: storageClient(t, flaky.URL, "")}

	_, err := store.Put(context.Background(), "bkt", "o.tar", strings.NewReader("whole body"), 10)
	require.NoError(t, err)
	assert.EqualValues(t, 3, calls.Load())
	data, _ := fake.Object("bkt", "o.tar")
	assert.Equal(t, "whole body", string(data), "each try sends the body from its start")

	failFirst.Store(10)
	_, _, err = store.Get(context.Background(), "bkt", "o.tar")
	assert.ErrorContains(t, err, "Backend Error", "gives up after a few tries")
}
