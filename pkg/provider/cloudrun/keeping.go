package cloudrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// keptFolder is where, under the sandbox's snapshot prefix, kept copies go:
// each in a folder of its own, apart from the snapshot each run replaces.
const keptFolder = "kept/"

// keptState is what Keep stored, and where: the object, and the sandbox
// and prefix the gateway names it by, to delete it.
type keptState struct {
	GCSBucket      string `json:"gcs_bucket"`
	Object         string `json:"object"`
	Sandbox        string `json:"sandbox"`
	SnapshotPrefix string `json:"snapshot_prefix"`
}

// noBucket refuses keeping a thread's work where no bucket is set.
func (c *client) noBucket(op string) error {
	if c.cfg.GCSBucket != "" {
		return nil
	}
	return provider.Errorf(provider.ErrUnsupported, providerName, op,
		"a sandbox without a snapshot bucket (gcs_bucket) keeps no files beyond its instance")
}

// Pause saves the workspace to the bucket, then releases the sandbox: a
// paused thread costs a stored object, and Reconnect brings it back under
// the same id. Pausing a running sandbox costs two calls (save, delete);
// a released one, the look that finds its snapshot.
func (c *client) Pause(ctx context.Context, inst provider.Instance) error {
	if err := c.noBucket("pause"); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	_, err := c.saveTo(ctx, "pause", inst.ID, c.location())
	switch {
	case errors.Is(err, provider.ErrGone):
		return c.released(ctx, inst.ID)
	case err != nil:
		return err
	}
	err = c.callJSON(ctx, call{op: "pause", method: http.MethodDelete, path: sandboxPath(inst.ID, "")}, nil)
	if errors.Is(err, provider.ErrGone) {
		return nil // released by the idle reaper meanwhile, after the save
	}
	return err
}

// released says whether a sandbox the gateway no longer has was paused:
// its snapshot is in the bucket. Without one it is gone.
func (c *client) released(ctx context.Context, id string) error {
	loc := c.location()
	q := url.Values{"gcs_bucket": {loc.GCSBucket}, "snapshot_prefix": {loc.SnapshotPrefix}}
	err := c.callJSON(ctx, call{op: "pause", method: http.MethodGet, path: sandboxPath(id, "/snapshot"), query: q}, nil)
	if errors.Is(err, provider.ErrGone) {
		return provider.Errorf(provider.ErrGone, providerName, "pause", "instance %s is gone, with no snapshot to resume from", id)
	}
	return err
}

// saveTo saves the sandbox's workspace as <prefix><id>.tar in the bucket.
func (c *client) saveTo(ctx context.Context, op, id string, loc snapshotLocation) (snapshotInfo, error) {
	body, ct := jsonBody(loc)
	var info snapshotInfo
	err := c.callJSON(ctx, call{op: op, method: http.MethodPost, path: sandboxPath(id, "/snapshot"), body: body, contentType: ct}, &info)
	return info, err
}

// Keep saves a copy of the workspace in a folder of its own under the
// snapshot prefix, which neither later runs nor Destroy touch. A paused
// sandbox is brought back for it and paused again. What is kept is the
// tar object, whose size the gateway's save answers (saveSnapshot in
// pkg/gateway/api_snapshots.go): that is what the bucket holds.
func (c *client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	if err := c.noBucket("keep"); err != nil {
		return provider.Kept{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	loc := snapshotLocation{GCSBucket: c.cfg.GCSBucket, SnapshotPrefix: c.cfg.SnapshotPrefix + keptFolder + keptName() + "/"}
	info, err := c.saveTo(ctx, "keep", inst.ID, loc)
	if errors.Is(err, provider.ErrGone) {
		if _, err := c.Reconnect(ctx, inst); err != nil {
			return provider.Kept{}, err
		}
		info, err = c.saveTo(ctx, "keep", inst.ID, loc)
		if pause := c.Pause(ctx, inst); err == nil {
			err = pause
		}
	}
	if err != nil {
		return provider.Kept{}, err
	}
	st, _ := json.Marshal(keptState{GCSBucket: info.Bucket, Object: info.Object, Sandbox: inst.ID, SnapshotPrefix: loc.SnapshotPrefix})
	return provider.Kept{ID: info.URI, State: st, At: time.Now().UTC(), Bytes: info.Size}, nil
}

// keptName names one kept copy: when, and a random part.
func keptName() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

func keptStateOf(op string, kept provider.Kept) (keptState, error) {
	var st keptState
	if json.Unmarshal(kept.State, &st) != nil || st.GCSBucket == "" || st.Object == "" || st.Sandbox == "" {
		return st, provider.Errorf(provider.ErrInvalidConfig, providerName, op, "the kept files %q carry no bucket and object", kept.ID)
	}
	return st, nil
}

// CreateFrom asks the gateway for a new sandbox whose workspace is the
// kept copy, in one call. A copy no longer in the bucket is ErrGone.
func (c *client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	st, err := keptStateOf("create from", kept)
	if err != nil {
		return provider.Instance{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	is := instanceState{Labels: labelMap(labels)}
	body, ct := jsonBody(createRequest{SandboxSpec: c.spec(is), From: &objectRef{GCSBucket: st.GCSBucket, Object: st.Object}})
	var sb sandbox
	if err := c.callJSON(ctx, call{op: "create from", method: http.MethodPost, path: "/sandboxes", body: body, contentType: ct}, &sb); err != nil {
		return provider.Instance{}, err
	}
	provider.Created(ctx, sb.ID)
	return c.instance(sb, is), nil
}

// Forget deletes the kept copy; the gateway deletes idempotently.
func (c *client) Forget(ctx context.Context, kept provider.Kept) error {
	st, err := keptStateOf("forget", kept)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	q := url.Values{"gcs_bucket": {st.GCSBucket}, "snapshot_prefix": {st.SnapshotPrefix}}
	return c.callJSON(ctx, call{op: "forget", method: http.MethodDelete, path: sandboxPath(st.Sandbox, "/snapshot"), query: q}, nil)
}
