package daytona

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// keptPrefix begins the name of every snapshot the client makes of a
// sandbox, so that they are told from the organisation's own.
const keptPrefix = "auxilia-kept-"

// snapshotInfo is the part of Daytona's Snapshot the client reads.
type snapshotInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	State       string `json:"state"`
	ErrorReason string `json:"errorReason"`
	// Size is in GiB, a fraction, and null when the runner did not say:
	// the runner reports the committed image's bytes/(1024*1024*1024)
	// (SizeGB in apps/runner/pkg/docker/snapshot_sandbox.go), stored as
	// the snapshot's size (apps/api/src/sandbox/utils/
	// persist-snapshot-from-sandbox.util.ts, dto/snapshot.dto.ts).
	Size *float64 `json:"size"`
}

// bytes is the snapshot's size in bytes, for the usage; 0 when Daytona
// does not say.
func (s snapshotInfo) bytes() int64 {
	if s.Size == nil || !(*s.Size > 0) {
		return 0
	}
	return int64(math.Round(math.Min(*s.Size*(1<<30), math.MaxInt64/2)))
}

// keptState is what Keep stores: the snapshot's name, which create takes.
type keptState struct {
	Name string `json:"name"`
}

// Keep makes a snapshot of the sandbox (Daytona commits its container to
// an image in its registry) and waits until the snapshot is active. The
// sandbox goes back to the state it was in. Daytona snapshots only a
// started or stopped sandbox, and refuses where no registry serves the
// sandbox's region: such refusals are ErrUnsupported, in Daytona's words.
func (c *Client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	const op = "keep"
	name := keptPrefix + randomID()
	body, _ := json.Marshal(map[string]string{"name": name}) // a map of strings always encodes
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(inst.ID)+"/snapshot", body))
	switch {
	case err != nil:
		return provider.Kept{}, err
	case ans.Status == http.StatusBadRequest && !overQuota(ans):
		return provider.Kept{}, failure(provider.ErrUnsupported, op, "Daytona does not snapshot sandbox %s: %s", inst.ID, describe(ans))
	case ans.Status != http.StatusOK && ans.Status != http.StatusCreated:
		return provider.Kept{}, c.controlPlaneError(op, ans)
	}
	snap, err := c.awaitSnapshot(ctx, op, inst.ID, name)
	if err != nil {
		return provider.Kept{}, err
	}
	st, _ := json.Marshal(keptState{Name: snap.Name}) // a struct of strings always encodes
	return provider.Kept{ID: snap.ID, State: st, At: time.Now().UTC(), Bytes: snap.bytes()}, nil
}

// awaitSnapshot polls the snapshot until it is active. Daytona makes it in
// the background and has none by that name until the sandbox is back from
// "snapshotting"; a sandbox back without one means Daytona failed to make it.
func (c *Client) awaitSnapshot(ctx context.Context, op, id, name string) (snapshotInfo, error) {
	var snap snapshotInfo
	err := c.waits.settle().Until(ctx, func(ctx context.Context) (string, bool, error) {
		var err error
		snap, err = c.getSnapshot(ctx, op, name)
		switch {
		case errors.Is(err, provider.ErrGone):
			sb, err := c.getSandbox(ctx, op, id)
			if err != nil {
				return "", false, err
			}
			if sb.State == "snapshotting" {
				return "sandbox snapshotting", false, nil
			}
			if snap, err = c.getSnapshot(ctx, op, name); err == nil {
				return snap.State, snap.State == "active", nil
			}
			return "", false, failure(provider.ErrFailed, op, "sandbox %s is %s again, and Daytona made no snapshot %s", id, sb.State, name)
		case err != nil:
			return "", false, err
		}
		switch snap.State {
		case "error", "build_failed":
			return "", false, failure(provider.ErrFailed, op, "snapshot %s is %s: %s", name, snap.State, snap.ErrorReason)
		}
		return snap.State, snap.State == "active", nil
	})
	return snap, outwaited(ctx, op, err, func(still *provider.StillError) error {
		return failure(provider.ErrTimeout, op, "snapshot %s is %s", name, still)
	})
}

// getSnapshot reads a snapshot by name or id; Daytona's 404 is ErrGone.
func (c *Client) getSnapshot(ctx context.Context, op, nameOrID string) (snapshotInfo, error) {
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodGet, "/snapshots/"+url.PathEscape(nameOrID), nil))
	if err != nil {
		return snapshotInfo{}, err
	}
	if ans.Status != http.StatusOK {
		return snapshotInfo{}, c.controlPlaneError(op, ans)
	}
	var snap snapshotInfo
	if err := json.Unmarshal(ans.Body, &snap); err != nil || snap.ID == "" {
		return snapshotInfo{}, failure(provider.ErrFailed, op, "the answer is not a snapshot: %s", string(ans.Body))
	}
	return snap, nil
}

// CreateFrom creates a sandbox from the kept snapshot, as Create does from
// the configured one. The snapshot is looked at first: Daytona's create
// words a missing snapshot as a bad request, which would read as a wrong
// configuration rather than kept files that are gone.
func (c *Client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	const op = "create from"
	var st keptState
	if json.Unmarshal(kept.State, &st) != nil || st.Name == "" {
		return provider.Instance{}, failure(provider.ErrInvalidConfig, op, "the kept files %q name no snapshot", kept.ID)
	}
	snap, err := c.getSnapshot(ctx, op, st.Name)
	switch {
	case err != nil:
		return provider.Instance{}, err
	case snap.State != "active":
		return provider.Instance{}, failure(provider.ErrGone, op, "snapshot %s is %s, not active", st.Name, snap.State)
	}
	return c.create(ctx, labels, st.Name)
}

// Forget deletes the snapshot, by its id as Daytona asks; one already gone is fine.
func (c *Client) Forget(ctx context.Context, kept provider.Kept) error {
	const op = "forget"
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodDelete, "/snapshots/"+url.PathEscape(kept.ID), nil))
	switch {
	case err != nil:
		return err
	case ans.Status == http.StatusOK || ans.Status == http.StatusNoContent || ans.Status == http.StatusNotFound:
		return nil
	}
	return c.controlPlaneError(op, ans)
}
