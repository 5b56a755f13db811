package opensandbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// renewEvery is how much of the lease a reconnect lets pass before it
// renews: a sandbox reconnected to always has most of its lease ahead,
// and a warm reconnect soon after the last is the one call that reads it.
const renewEvery = 5 * time.Minute

// Reconnect reads the instance's state and makes it usable. The controller
// keeps a sandbox whose container has stopped, and renews it as happily
// as a running one: only its state tells. A running one is renewed when
// its lease is partly spent; a paused one is resumed, one pausing or
// starting waited for; one that has exited (Failed, Terminated, Unknown)
// is destroyed and gone, so that the thread gets a new one. When a call to
// its execd failed since the last reconnect, execd is asked whether it is
// there: a running container whose execd does not answer is gone too.
func (c *client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	sb, err := c.look(ctx, inst.ID)
	if err != nil {
		return provider.Instance{}, err
	}
	if sb.Status.State != stateRunning {
		if sb, err = c.awaken(ctx, sb); err != nil {
			return provider.Instance{}, err
		}
	}
	if renewDue(sb) {
		if err := c.renew(ctx, "reconnect", inst.ID); err != nil {
			return provider.Instance{}, err
		}
	}
	t, err := decodeTarget(inst.State)
	saved := err == nil
	if !saved {
		if t, err = c.endpoint(ctx, inst.ID); err != nil { // an instance saved without its endpoint
			return provider.Instance{}, err
		}
	}
	checked, err := c.checkExecd(ctx, inst.ID, t)
	if err != nil {
		return provider.Instance{}, err
	}
	if !saved || checked.BaseURL != t.BaseURL {
		inst.State = checked.encode()
	}
	if inst.WorkDir == "" {
		inst.WorkDir = workDir
	}
	return inst, nil
}

// look reads the sandbox: its state and its expiry, in one call.
func (c *client) look(ctx context.Context, id string) (sandbox, error) {
	return c.lookAs(ctx, "reconnect", id)
}

// lookAs reads the sandbox for op.
func (c *client) lookAs(ctx context.Context, op, id string) (sandbox, error) {
	var sb sandbox
	err := c.do(ctx, c.lifecycle(op, "GET", sandboxPath(id, ""), nil), &sb)
	return sb, err
}

// renewDue says whether more than renewEvery of the sandbox's lease has passed.
func renewDue(sb sandbox) bool {
	return sb.ExpiresAt != nil && time.Until(*sb.ExpiresAt) < lease-renewEvery
}

// awaken brings a sandbox that is not running back to Running, within the
// ready timeout: a paused one is resumed, one on its way (Pending,
// Pausing, Resuming, Allocated) waited for. An exited one is destroyed.
func (c *client) awaken(ctx context.Context, sb sandbox) (sandbox, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, c.readyTimeout, errReadyTimeout)
	defer cancel()
	seen := true
	err := readiness.Until(ctx, func(ctx context.Context) (string, bool, error) {
		if !seen {
			var err error
			if sb, err = c.look(ctx, sb.ID); err != nil {
				return "", false, err
			}
		}
		seen = false
		switch sb.Status.State {
		case stateRunning:
			return stateRunning, true, nil
		case stateFailed, stateTerminated, stateUnknown, stateStopping:
			return "", false, c.dispose(ctx, sb)
		case statePaused:
			if err := c.resume(ctx, sb.ID); err != nil {
				return "", false, err
			}
		}
		return fmt.Sprintf("%s (%s)", sb.Status.State, describeStatus(sb.Status)), false, nil
	})
	var still *provider.StillError
	if errors.As(err, &still) {
		return sb, failure(provider.ErrTimeout, "reconnect", "instance %s is %v", sb.ID, still)
	}
	return sb, err
}

// resume asks a paused sandbox to run again; one another caller has
// resumed meanwhile (409 SANDBOX_NOT_PAUSED) is fine.
func (c *client) resume(ctx context.Context, id string) error {
	err := c.do(ctx, c.lifecycle("resume", "POST", "/sandboxes/"+url.PathEscape(id)+"/resume", nil), nil)
	if errors.Is(err, provider.ErrInvalidConfig) {
		return nil // the next look tells what it is now
	}
	return err
}

// dispose destroys a sandbox whose container has exited and reports it
// gone, with the state the server gave.
func (c *client) dispose(ctx context.Context, sb sandbox) error {
	cleanup, cancel := c.detached(ctx)
	defer cancel()
	_ = c.destroy(cleanup, sb.ID)
	return failure(provider.ErrGone, "reconnect", "instance %s is %s: %s", sb.ID, sb.Status.State, describeStatus(sb.Status))
}

// checkExecd asks a running sandbox's execd whether it is there, when a
// call to it failed since the last reconnect. A direct endpoint may have
// moved (a restarted container gets new host ports): it is asked for
// again before the sandbox is given up as gone.
func (c *client) checkExecd(ctx context.Context, id string, t execdTarget) (execdTarget, error) {
	if _, failed := c.execdFailed.LoadAndDelete(t.BaseURL); !failed {
		return t, nil
	}
	silence := c.ping(ctx, t)
	switch {
	case silence == nil:
		return t, nil
	case errors.Is(silence, provider.ErrUnauthorized):
		return t, silence // execd is there, refusing the headers: not a reason to destroy it
	}
	if !t.Proxied {
		if moved, err := c.endpoint(ctx, id); err == nil && moved.BaseURL != t.BaseURL && c.ping(ctx, moved) == nil {
			moved.Egress = t.Egress // what it was made with, not what the config now says
			return moved, nil
		}
	}
	cleanup, cancel := c.detached(ctx)
	defer cancel()
	_ = c.destroy(cleanup, id)
	return t, failure(provider.ErrGone, "reconnect", "instance %s is running but its execd does not answer: %s", id, providerMessage(silence))
}
