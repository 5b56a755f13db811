package opensandbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// The snapshot API's messages (server/opensandbox_server/api/schema.py).
// A snapshot carries no size (Snapshot there, and in
// specs/sandbox-lifecycle.yml, has only its id, sandbox, name, status and
// creation time), so kept files here report 0 bytes and are not metered.
type snapshotAnswer struct {
	ID        string        `json:"id"`
	Status    sandboxStatus `json:"status"`
	CreatedAt *time.Time    `json:"createdAt"`
}

// The states of a snapshot (services/snapshot_models.py).
const (
	snapshotReady  = "Ready"
	snapshotFailed = "Failed"
)

// Pause freezes the instance with its memory and files, and waits until
// the server says it is Paused. The pause is asked first, so that pausing
// a running instance costs two calls (pause, then a look that sees it
// Paused); pausing a paused one is refused by Docker, and the look that
// follows says it is paused. A server that will not pause a running
// sandbox (a Kubernetes workload without pause) is ErrUnsupported.
func (c *client) Pause(ctx context.Context, inst provider.Instance) error {
	ctx, cancel := context.WithTimeoutCause(ctx, c.readyTimeout, errReadyTimeout)
	defer cancel()
	refused := c.do(ctx, c.lifecycle("pause", "POST", sandboxPath(inst.ID, "/pause"), nil), nil)
	if errors.Is(refused, provider.ErrGone) {
		return refused
	}
	err := readiness.Until(ctx, func(ctx context.Context) (string, bool, error) {
		sb, err := c.lookAs(ctx, "pause", inst.ID)
		if err != nil {
			return "", false, err
		}
		switch sb.Status.State {
		case statePaused:
			return statePaused, true, nil
		case stateFailed, stateTerminated, stateUnknown, stateStopping:
			return "", false, failure(provider.ErrGone, "pause", "instance %s is %s: %s", inst.ID, sb.Status.State, describeStatus(sb.Status))
		case stateRunning:
			if refused != nil {
				return "", false, pauseRefused(inst.ID, refused)
			}
		}
		return fmt.Sprintf("%s (%s)", sb.Status.State, describeStatus(sb.Status)), false, nil
	})
	var still *provider.StillError
	if errors.As(err, &still) {
		return failure(provider.ErrTimeout, "pause", "instance %s was not paused within %s: it is %v", inst.ID, c.readyTimeout, still)
	}
	return err
}

// pauseRefused words a refused pause of a sandbox that runs on: the
// server's refusal of the request (400, 409, 501) means it cannot pause
// it; anything else (a timeout, a 5xx) is that failure.
func pauseRefused(id string, refused error) error {
	if errors.Is(refused, provider.ErrInvalidConfig) || errors.Is(refused, provider.ErrUnsupported) {
		return failure(provider.ErrUnsupported, "pause", "the server does not pause instance %s: %s", id, providerMessage(refused))
	}
	return refused
}

// Keep snapshots the instance (the Docker runtime commits its container to
// an image; Kubernetes takes a volume snapshot) and waits until the
// snapshot is Ready. The server snapshots only a Running sandbox: a paused
// one is resumed for it and paused again. A server whose runtime has no
// snapshots, or too old to have the snapshot API, is ErrUnsupported.
func (c *client) Keep(ctx context.Context, inst provider.Instance) (provider.Kept, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.readyTimeout, errReadyTimeout)
	defer cancel()
	sn, err := c.snapshot(ctx, inst.ID)
	if errors.Is(err, provider.ErrInvalidConfig) {
		if sb, look := c.lookAs(ctx, "keep", inst.ID); look == nil && sb.Status.State == statePaused {
			sn, err = c.snapshotPaused(ctx, inst, sb)
		}
	}
	if err != nil {
		return provider.Kept{}, c.keepFailed(ctx, err)
	}
	if sn, err = c.awaitSnapshot(ctx, sn); err != nil {
		return provider.Kept{}, c.keepFailed(ctx, err)
	}
	at := time.Now()
	if sn.CreatedAt != nil {
		at = *sn.CreatedAt
	}
	return provider.Kept{ID: sn.ID, At: at}, nil
}

// snapshot asks for a snapshot of a running sandbox.
func (c *client) snapshot(ctx context.Context, id string) (snapshotAnswer, error) {
	var sn snapshotAnswer
	err := c.do(ctx, c.lifecycle("keep", "POST", sandboxPath(id, "/snapshots"), struct{}{}), &sn)
	if err == nil && sn.ID == "" {
		err = failure(provider.ErrFailed, "keep", "the answer to creating a snapshot names no snapshot id")
	}
	return sn, err
}

// snapshotPaused resumes a paused sandbox, snapshots it and pauses it
// again, so that it is left as it was.
func (c *client) snapshotPaused(ctx context.Context, inst provider.Instance, paused sandbox) (snapshotAnswer, error) {
	if _, err := c.awaken(ctx, paused); err != nil {
		return snapshotAnswer{}, err
	}
	sn, err := c.snapshot(ctx, inst.ID)
	if pause := c.Pause(ctx, inst); err == nil && pause != nil {
		err = pause
	}
	return sn, err
}

// awaitSnapshot polls a snapshot until it is Ready. A Failed one is
// deleted, as it can never be restored.
func (c *client) awaitSnapshot(ctx context.Context, sn snapshotAnswer) (snapshotAnswer, error) {
	seen := true
	err := readiness.Until(ctx, func(ctx context.Context) (string, bool, error) {
		if !seen {
			if err := c.do(ctx, c.lifecycle("keep", "GET", "/snapshots/"+url.PathEscape(sn.ID), nil), &sn); err != nil {
				return "", false, err
			}
		}
		seen = false
		switch sn.Status.State {
		case snapshotReady:
			return snapshotReady, true, nil
		case snapshotFailed:
			cleanup, cancel := c.detached(ctx)
			defer cancel()
			_ = c.forget(cleanup, sn.ID)
			return "", false, failure(provider.ErrFailed, "keep", "snapshot %s failed: %s", sn.ID, describeStatus(sn.Status))
		}
		return fmt.Sprintf("%s (%s)", sn.Status.State, describeStatus(sn.Status)), false, nil
	})
	var still *provider.StillError
	if errors.As(err, &still) {
		return sn, failure(provider.ErrTimeout, "keep", "snapshot %s was not ready within %s: it is %v", sn.ID, c.readyTimeout, still)
	}
	return sn, err
}

// keepFailed words a failed keep: past the ready timeout it is a timeout.
func (c *client) keepFailed(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errReadyTimeout) && !errors.Is(err, provider.ErrTimeout) {
		return failure(provider.ErrTimeout, "keep", "the snapshot was not ready within %s: %s", c.readyTimeout, providerMessage(err))
	}
	return err
}

// CreateFrom starts a new instance from a snapshot, as Create does from
// the image; the server's create takes the snapshot in place of the image.
// A snapshot the server no longer has is ErrGone.
func (c *client) CreateFrom(ctx context.Context, labels provider.Labels, kept provider.Kept) (provider.Instance, error) {
	req, err := c.newRequest(labels)
	if err != nil {
		return provider.Instance{}, err
	}
	req.SnapshotID = kept.ID
	return c.start(ctx, req, labels.Instance)
}

// Forget deletes the snapshot; one already gone is fine.
func (c *client) Forget(ctx context.Context, kept provider.Kept) error {
	return c.forget(ctx, kept.ID)
}

func (c *client) forget(ctx context.Context, id string) error {
	err := c.do(ctx, c.lifecycle("forget", "DELETE", "/snapshots/"+url.PathEscape(id), nil), nil)
	if errors.Is(err, provider.ErrGone) {
		return nil
	}
	return err
}

// sandboxPath is a sandbox's route in the lifecycle API.
func sandboxPath(id, rest string) string { return "/sandboxes/" + url.PathEscape(id) + rest }
