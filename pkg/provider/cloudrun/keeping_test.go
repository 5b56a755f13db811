package cloudrun

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/auxilia/sandboxes/pkg/gateway/gatewaytest"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/providertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConformanceLifecycle(t *testing.T) {
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
	providertest.RunLifecycle(t, open(t, g.URL, gatewaytest.Secret, withBucket))
}

// A pause saves and releases (two calls); the resume in Reconnect finds
// the sandbox gone and restores it (two calls); keeping is one save, a
// restore one create, forgetting one delete.
func TestKeepingCostsItsCalls(t *testing.T) {
	ctx := context.Background()
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
	calls := gatewaytest.CountCalls(t, g.URL)
	c := open(t, calls.URL, gatewaytest.Secret, withBucket)
	inst, err := c.Create(ctx, provider.Labels{Thread: "th"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	require.NoError(t, c.WriteFile(ctx, inst, "/workspace/f.txt", []byte("here")))

	calls.Take()
	require.NoError(t, c.(provider.Pauser).Pause(ctx, inst))
	assert.Equal(t, map[string]int{"POST /sandboxes/{id}/snapshot": 1, "DELETE /sandboxes/{id}": 1}, calls.Take())
	require.NoError(t, c.(provider.Pauser).Pause(ctx, inst))
	assert.Equal(t, map[string]int{"POST /sandboxes/{id}/snapshot": 1, "GET /sandboxes/{id}/snapshot": 1}, calls.Take(),
		"a paused sandbox is told by its snapshot")

	again, err := c.Reconnect(ctx, inst)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"POST /sandboxes/{id}/keepalive": 1, "POST /sandboxes/{id}/restore": 1}, calls.Take())
	got, err := providertest.ReadAll(ctx, c, again, "/workspace/f.txt")
	require.NoError(t, err)
	assert.Equal(t, "here", string(got))

	calls.Take()
	kept, err := c.(provider.Keeper).Keep(ctx, again)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"POST /sandboxes/{id}/snapshot": 1}, calls.Take())
	restored, err := c.(provider.Keeper).CreateFrom(ctx, provider.Labels{Thread: "th"}, kept)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), restored) })
	assert.Equal(t, map[string]int{"POST /sandboxes": 1}, calls.Take())
	require.NoError(t, c.(provider.Keeper).Forget(ctx, kept))
	assert.Equal(t, map[string]int{"DELETE /sandboxes/{id}/snapshot": 1}, calls.Take())
}

// A kept copy lives apart from the snapshot each run replaces: Destroy
// leaves it, and a paused sandbox can be kept and stays paused.
func TestKeptFilesAreApartFromTheRunSnapshot(t *testing.T) {
	ctx := context.Background()
	gcs := gatewaytest.NewGCS(t)
	g := gatewaytest.Start(t, gcs)
	c := open(t, g.URL, gatewaytest.Secret, withBucket, func(c *Config) { c.SnapshotPrefix = "threads/" })
	inst, err := c.Create(ctx, provider.Labels{Thread: "th"})
	require.NoError(t, err)
	require.NoError(t, c.WriteFile(ctx, inst, "/workspace/f.txt", []byte("kept")))
	require.NoError(t, c.(provider.Pauser).Pause(ctx, inst))

	kept, err := c.(provider.Keeper).Keep(ctx, inst)
	require.NoError(t, err)
	assert.Regexp(t, `^gs://`+gatewaytest.Bucket+`/threads/kept/[0-9TZ]+-[0-9a-f]+/`+inst.ID+`\.tar$`, kept.ID)
	assert.WithinDuration(t, time.Now(), kept.At, time.Minute)
	require.NoError(t, c.(provider.Pauser).Pause(ctx, inst), "it is paused again")
	_, live := gcs.Object(gatewaytest.Bucket, "threads/"+inst.ID+".tar")
	assert.True(t, live, "the paused sandbox's snapshot is there")

	require.NoError(t, c.Destroy(ctx, inst))
	object, stored := gcs.Object(gatewaytest.Bucket, strings.TrimPrefix(kept.ID, "gs://"+gatewaytest.Bucket+"/"))
	assert.True(t, stored, "destroying the sandbox leaves what was kept")
	assert.Equal(t, int64(len(object)), kept.Bytes, "its size is the stored object's, for the usage")
	restored, err := c.(provider.Keeper).CreateFrom(ctx, provider.Labels{Thread: "th"}, kept)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), restored) })
	got, err := providertest.ReadAll(ctx, c, restored, "/workspace/f.txt")
	require.NoError(t, err)
	assert.Equal(t, "kept", string(got))
}

// A kept copy no longer in the bucket, and a sandbox gone with no
// snapshot, are gone.
func TestMissingObjectsAreGone(t *testing.T) {
	ctx := context.Background()
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
	c := open(t, g.URL, gatewaytest.Secret, withBucket)
	inst, err := c.Create(ctx, provider.Labels{Thread: "th"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	kept, err := c.(provider.Keeper).Keep(ctx, inst)
	require.NoError(t, err)
	require.NoError(t, c.(provider.Keeper).Forget(ctx, kept))
	_, err = c.(provider.Keeper).CreateFrom(ctx, provider.Labels{Thread: "th"}, kept)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "no snapshot at gs://")

	g.Delete(t, inst.ID)
	err = c.(provider.Pauser).Pause(ctx, inst)
	require.ErrorIs(t, err, provider.ErrGone)
	assert.Contains(t, err.Error(), "no snapshot to resume from")
	_, err = c.(provider.Keeper).Keep(ctx, inst)
	assert.ErrorIs(t, err, provider.ErrGone)
}

func TestKeepingNeedsABucket(t *testing.T) {
	ctx := context.Background()
	g := gatewaytest.Start(t, gatewaytest.NewGCS(t))
	c := open(t, g.URL, gatewaytest.Secret)
	inst, err := c.Create(ctx, provider.Labels{Thread: "th"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy(context.Background(), inst) })
	err = c.(provider.Pauser).Pause(ctx, inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	assert.Contains(t, err.Error(), "gcs_bucket")
	_, err = c.(provider.Keeper).Keep(ctx, inst)
	require.ErrorIs(t, err, provider.ErrUnsupported)
	_, err = c.Reconnect(ctx, inst)
	assert.NoError(t, err, "the refused pause left the sandbox running")
}
