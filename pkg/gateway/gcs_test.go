package gateway

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/auxilia/sandboxes/pkg/gateway/gcstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGCSAgainstTheFake(t *testing.T) {
	fake := gcstest.NewServer("bkt")
	defer fake.Close()
	fake.Token = "tok"
	store := &GCS{Endpoint: fake.URL, HTTP: fake.Client(), Tokens: StaticToken("tok")}
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
	assert.ErrorContains(t, err, "No such object: bkt/missing.tar")
	_, err = store.Put(ctx, "nobucket", "x", strings.NewReader(""), 0)
	assert.ErrorIs(t, err, ErrObjectNotFound)

	require.NoError(t, store.Delete(ctx, "bkt", "deep/name with space.tar"))
	assert.ErrorIs(t, store.Delete(ctx, "bkt", "deep/name with space.tar"), ErrObjectNotFound)

	wrong := &GCS{Endpoint: fake.URL, HTTP: fake.Client(), Tokens: StaticToken("nope")}
	_, _, err = wrong.Get(ctx, "bkt", "x")
	assert.ErrorIs(t, err, ErrStorageDenied)
	assert.ErrorContains(t, err, "Invalid Credentials")
}

func TestMetadataTokenSource(t *testing.T) {
	var calls atomic.Int32
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Metadata-Flavor") != "Google" || r.URL.Path != "/computeMetadata/v1/instance/service-accounts/default/token" {
			http.Error(w, "bad request", http.StatusForbidden)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"access_token":"ya29.token","expires_in":3599,"token_type":"Bearer"}`)
	}))
	defer meta.Close()
	src := &MetadataTokenSource{BaseURL: meta.URL, HTTP: meta.Client()}
	for range 3 {
		tok, err := src.Token(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "ya29.token", tok)
	}
	assert.EqualValues(t, 1, calls.Load(), "the token is reused until it nears its expiry")

	short := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.WriteString(w, `{"access_token":"short","expires_in":30,"token_type":"Bearer"}`)
	}))
	defer short.Close()
	calls.Store(0)
	src = &MetadataTokenSource{BaseURL: short.URL, HTTP: short.Client()}
	_, _ = src.Token(context.Background())
	_, _ = src.Token(context.Background())
	assert.EqualValues(t, 2, calls.Load(), "a token about to expire is renewed")

	down := &MetadataTokenSource{BaseURL: "http://127.0.0.1:1", HTTP: http.DefaultClient}
	_, err := down.Token(context.Background())
	assert.ErrorContains(t, err, "metadata server")
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
	store := &GCS{Endpoint: flaky.URL, HTTP: flaky.Client()}

	_, err := store.Put(context.Background(), "bkt", "o.tar", strings.NewReader("whole body"), 10)
	require.NoError(t, err)
	assert.EqualValues(t, 3, calls.Load())
	data, _ := fake.Object("bkt", "o.tar")
	assert.Equal(t, "whole body", string(data), "each try sends the body from its start")

	failFirst.Store(10)
	_, _, err = store.Get(context.Background(), "bkt", "o.tar")
	assert.ErrorContains(t, err, "Backend Error", "gives up after a few tries")
}
