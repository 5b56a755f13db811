package daytona

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Create asks for a new sandbox, waits until it has started (Daytona may
// answer while it is still "creating") and learns its work dir. A sandbox
// that never gets there is deleted.
func (c *Client) Create(ctx context.Context, labels provider.Labels) (provider.Instance, error) {
	return c.create(ctx, labels, c.cfg.Snapshot)
}

// create makes a sandbox from a snapshot: the configured one, or one kept.
func (c *Client) create(ctx context.Context, labels provider.Labels, snapshot string) (provider.Instance, error) {
	const op = "create"
	creation := labels.Instance
	if creation == "" {
		creation = randomID()
	}
	blockAll, allowList := c.cfg.network()
	body, err := json.Marshal(createSandbox{
		Snapshot:            snapshot,
		Target:              c.cfg.Target,
		AutoStopInterval:    c.cfg.AutoStopInterval,
		AutoArchiveInterval: c.cfg.AutoArchiveInterval,
		Labels:              sandboxLabels(labels, creation),
		Env:                 c.cfg.Env,
		NetworkBlockAll:     blockAll,
		NetworkAllowList:    allowList,
	})
	if err != nil {
		return provider.Instance{}, failure(provider.ErrInvalidConfig, op, "%s", err)
	}
	sb, err := c.createSandbox(ctx, op, body, creation)
	if err != nil {
		return provider.Instance{}, err
	}
	provider.Created(ctx, sb.ID)
	inst, err := c.makeReady(ctx, op, sb)
	if err != nil {
		c.abandon(sb.ID)
		return provider.Instance{}, err
	}
	return inst, nil
}

func (c *Client) createSandbox(ctx context.Context, op string, body []byte, creation string) (sandbox, error) {
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox", body))
	switch {
	case err != nil || ans.Status >= http.StatusInternalServerError:
		// The sandbox may exist although the answer was lost: look for it by
		// its label, even when the caller has given up, so as not to leave it.
		abandon := func(_ context.Context, sb sandbox) { c.abandon(sb.ID) }
		found, ok := c.createdBy(op, creation).Salvage(ctx, c.waits.Request, abandon)
		switch {
		case ok:
			return found, nil
		case ctx.Err() != nil:
			return sandbox{}, provider.RoundTripError(ctx, providerName, op, ctx.Err())
		case err != nil:
			return sandbox{}, err
		}
		return sandbox{}, c.controlPlaneError(op, ans)
	case ans.Status == http.StatusOK || ans.Status == http.StatusCreated:
		return decodeSandbox(op, ans)
	case overQuota(ans):
		return sandbox{}, c.controlPlaneError(op, ans)
	case networkRestricted(ans):
		refusal := failure(provider.ErrInvalidConfig, op,
			"network: this Daytona organisation may not set a sandbox's network (its tier limits egress for all its sandboxes); remove the sandbox's network settings: %s", describe(ans))
		refusal.Field = "network"
		return sandbox{}, refusal
	case ans.Status == http.StatusBadRequest || ans.Status == http.StatusNotFound || ans.Status == http.StatusUnprocessableEntity:
		// A snapshot or target Daytona does not know, …
		return sandbox{}, failure(provider.ErrInvalidConfig, op, "%s", describe(ans))
	default:
		return sandbox{}, c.controlPlaneError(op, ans)
	}
}

// makeReady waits for a new sandbox to start, gives it the configured
// resources and reads its work dir.
func (c *Client) makeReady(ctx context.Context, op string, sb sandbox) (provider.Instance, error) {
	sb, err := c.bringUp(ctx, op, sb)
	if err != nil {
		if errors.Is(err, provider.ErrGone) {
			// A sandbox that fails while being made is a failure to create, not a lost one.
			kind := provider.ErrFailed
			if sb.State == "build_failed" {
				kind = provider.ErrInvalidConfig
			}
			var pe *provider.Error
			if errors.As(err, &pe) {
				return provider.Instance{}, failure(kind, op, "%s", pe.Message)
			}
		}
		return provider.Instance{}, err
	}
	if sb, err = c.resize(ctx, op, sb); err != nil {
		return provider.Instance{}, err
	}
	inst := instanceOf(sb, "")
	if inst.WorkDir, err = c.workDir(ctx, op, inst); err != nil {
		return provider.Instance{}, err
	}
	return inst, nil
}

// abandon deletes a sandbox that Create could not make ready, or that
// failed for good, so it costs nothing; a failure to do so leaves it to
// Daytona's auto-stop.
func (c *Client) abandon(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.waits.Request)
	defer cancel()
	_, _ = c.do(ctx, c.controlPlane("destroy", http.MethodDelete, "/sandbox/"+url.PathEscape(id), nil))
}

// Reconnect makes a sandbox usable again by its state: a started one is used
// as it is (one call, which also proves the key), one on its way is waited
// for, a stopped, paused or archived one is started, a recoverable error is
// recovered. A destroyed one is ErrGone; so is a failed one, deleted first
// so that it costs nothing.
func (c *Client) Reconnect(ctx context.Context, inst provider.Instance) (provider.Instance, error) {
	const op = "reconnect"
	sb, err := c.getSandbox(ctx, op, inst.ID)
	if err != nil {
		return provider.Instance{}, err
	}
	pausedWith := keptBy(sb.State)
	if sb, err = c.bringUp(ctx, op, sb); err != nil {
		if errors.Is(err, provider.ErrGone) && failed(sb.State) {
			c.abandon(sb.ID) // Daytona destroys it in the background; nobody waits for it
		}
		return provider.Instance{}, err
	}
	if sb.ToolboxProxyURL == "" {
		sb.ToolboxProxyURL = stateOf(inst).ToolboxProxyURL
	}
	again := instanceOf(sb, inst.WorkDir)
	if pausedWith != "" {
		again.State = instanceState{ToolboxProxyURL: sb.ToolboxProxyURL, PausedWith: pausedWith}.raw()
	}
	if again.WorkDir == "" {
		if again.WorkDir, err = c.workDir(ctx, op, again); err != nil {
			return provider.Instance{}, err
		}
	}
	return again, nil
}

// KeepAlive reports activity to the control plane, which is what Daytona's
// own toolbox proxy does on every call: it restarts the auto-stop clock.
func (c *Client) KeepAlive(ctx context.Context, inst provider.Instance) error {
	const op = "keep alive"
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(inst.ID)+"/last-activity", nil))
	if err != nil {
		return err
	}
	if ans.Status >= 200 && ans.Status < 300 {
		return nil
	}
	return c.controlPlaneError(op, ans)
}

// Destroy deletes a sandbox and waits until Daytona no longer has it.
// Daytona answers the delete at once, with the sandbox "destroying"; while
// the sandbox changes state it refuses with a 409, destroying included.
func (c *Client) Destroy(ctx context.Context, inst provider.Instance) error {
	const op = "destroy"
	del := c.controlPlane(op, http.MethodDelete, "/sandbox/"+url.PathEscape(inst.ID), nil)
	del.answerConflict = true
	var refused answer
	destroying := false
	err := c.waits.settle().Until(ctx, func(ctx context.Context) (string, bool, error) {
		ans, err := c.do(ctx, del)
		if err != nil {
			return "", false, err
		}
		switch {
		case ans.Status == http.StatusNotFound:
			return "", true, nil
		case ans.Status == http.StatusOK || ans.Status == http.StatusNoContent:
			destroying = true
			return "", true, nil
		case ans.Status != http.StatusConflict:
			return "", false, c.controlPlaneError(op, ans)
		}
		// A state change is in progress: wait out a destruction, or the
		// change, and ask again.
		refused = ans
		sb, err := c.getSandbox(ctx, op, inst.ID)
		switch {
		case errors.Is(err, provider.ErrGone):
			return "", true, nil
		case err != nil:
			return "", false, err
		}
		destroying = sb.State == "destroying" || sb.State == "destroyed"
		return sb.State, destroying, nil
	})
	switch err = outwaited(ctx, op, err, func(*provider.StillError) error { return c.controlPlaneError(op, refused) }); {
	case err != nil:
		return err
	case destroying:
		return c.waitGone(ctx, op, inst.ID)
	}
	return nil
}

// waitGone polls a sandbox until Daytona no longer has it.
func (c *Client) waitGone(ctx context.Context, op, id string) error {
	err := c.waits.settle().Until(ctx, func(ctx context.Context) (string, bool, error) {
		sb, err := c.getSandbox(ctx, op, id)
		switch {
		case errors.Is(err, provider.ErrGone):
			return "", true, nil
		case err != nil:
			return "", false, err
		}
		return sb.State, sb.State == "destroyed", nil
	})
	return outwaited(ctx, op, err, func(still *provider.StillError) error {
		return failure(provider.ErrTimeout, op, "sandbox %s is %s", id, still)
	})
}

// bringUp takes a sandbox from the state it was last seen in to started:
// it waits out transitions and starts a stopped, paused or archived one.
func (c *Client) bringUp(ctx context.Context, op string, sb sandbox) (sandbox, error) {
	startAsked, recoverAsked, seen := false, false, true
	err := c.waits.settle().Until(ctx, func(ctx context.Context) (string, bool, error) {
		if !seen {
			next, err := c.getSandbox(ctx, op, sb.ID)
			if err != nil {
				return "", false, err
			}
			sb = next
		}
		seen = false
		switch phaseOf(sb.State) {
		case phaseReady:
			return sb.State, true, nil
		case phaseGone:
			if !sb.Recoverable || recoverAsked || sb.State != "error" {
				return "", false, goneError(op, sb)
			}
			recoverAsked = true
			next, err := c.recoverSandbox(ctx, op, sb.ID)
			if err != nil {
				return "", false, err
			}
			sb = next
		case phaseStuck:
			return "", false, failure(provider.ErrFailed, op, "sandbox %s is in state %q: Daytona has lost track of it on its runner, and waiting will not bring it back", sb.ID, sb.State)
		case phaseAsleep:
			// An archived sandbox being restored still reads "archived": its
			// desired state tells that it is already on its way.
			if sb.DesiredState != "started" && (sb.DesiredState != "" || !startAsked) {
				startAsked = true
				next, err := c.startSandbox(ctx, op, sb.ID)
				if err != nil {
					return "", false, err
				}
				sb = next
			}
		}
		return sb.State, phaseOf(sb.State) == phaseReady, nil
	})
	return sb, outwaited(ctx, op, err, func(still *provider.StillError) error {
		return failure(provider.ErrTimeout, op, "sandbox %s is %s", sb.ID, still)
	})
}

// outwaited words how a poll of the control plane ended: the caller leaving
// while it paused, or Settle passing, which timedOut words; any other error
// is the poll's own.
func outwaited(ctx context.Context, op string, err error, timedOut func(*provider.StillError) error) error {
	var still *provider.StillError
	switch {
	case !errors.As(err, &still):
		return err
	case still.Err != nil:
		return provider.RoundTripError(ctx, providerName, op, still.Err)
	default:
		return timedOut(still)
	}
}

// startSandbox asks Daytona to start (or restore, or resume) a sandbox.
func (c *Client) startSandbox(ctx context.Context, op, id string) (sandbox, error) {
	return c.changeState(ctx, op, id, "start")
}

// changeState asks Daytona to start or stop a sandbox. Daytona refuses one
// "not in a valid state" (or "not in a stoppable state", or errored) with a
// 400 (apps/api/src/sandbox/services/sandbox.service.ts, start and stop): it
// moved on since we looked, so look again.
func (c *Client) changeState(ctx context.Context, op, id, action string) (sandbox, error) {
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(id)+"/"+action, nil))
	if err != nil {
		return sandbox{}, err
	}
	switch {
	case ans.Status == http.StatusOK || ans.Status == http.StatusCreated:
		return decodeSandbox(op, ans)
	case ans.Status == http.StatusBadRequest && !overQuota(ans):
		return c.getSandbox(ctx, op, id)
	default:
		return sandbox{}, c.controlPlaneError(op, ans)
	}
}

// recoverSandbox asks Daytona to mend a sandbox in a recoverable error: it
// goes back to stopped with its files, and on to started.
func (c *Client) recoverSandbox(ctx context.Context, op, id string) (sandbox, error) {
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(id)+"/recover", nil))
	if err != nil {
		return sandbox{}, err
	}
	if ans.Status != http.StatusOK && ans.Status != http.StatusCreated {
		return sandbox{}, c.controlPlaneError(op, ans)
	}
	return decodeSandbox(op, ans)
}

// getSandbox reads a sandbox; Daytona's 404 is ErrGone.
func (c *Client) getSandbox(ctx context.Context, op, id string) (sandbox, error) {
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodGet, "/sandbox/"+url.PathEscape(id), nil))
	if err != nil {
		return sandbox{}, err
	}
	if ans.Status != http.StatusOK {
		return sandbox{}, c.controlPlaneError(op, ans)
	}
	return decodeSandbox(op, ans)
}

func decodeSandbox(op string, ans answer) (sandbox, error) {
	var sb sandbox
	if err := json.Unmarshal(ans.Body, &sb); err != nil || sb.ID == "" {
		return sandbox{}, failure(provider.ErrFailed, op, "the answer is not a sandbox: %s", string(ans.Body))
	}
	return sb, nil
}

// failed reports whether a sandbox in state failed for good at Daytona,
// which keeps it (and counts it against the organisation) until it is destroyed.
func failed(state string) bool { return state == "error" || state == "build_failed" }

func goneError(op string, sb sandbox) error {
	if sb.ErrorReason != "" {
		return failure(provider.ErrGone, op, "sandbox %s is %s: %s", sb.ID, sb.State, sb.ErrorReason)
	}
	return failure(provider.ErrGone, op, "sandbox %s is %s", sb.ID, sb.State)
}

// randomID is a fresh, unguessable name part.
func randomID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}

// Relabel replaces a sandbox's labels with the thread's, keeping its
// creation label (our id for the instance, unchanged), by which the client
// finds it. Daytona replaces the labels whole: PUT /sandbox/{id}/labels in
// its apps/api/src/sandbox/controllers/sandbox.controller.ts.
func (c *Client) Relabel(ctx context.Context, inst provider.Instance, labels provider.Labels) error {
	const op = "relabel"
	body, err := json.Marshal(map[string]map[string]string{"labels": sandboxLabels(labels, labels.Instance)})
	if err != nil {
		return failure(provider.ErrInvalidConfig, op, "%s", err)
	}
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPut, "/sandbox/"+url.PathEscape(inst.ID)+"/labels", body))
	switch {
	case err != nil:
		return err
	case ans.Status == http.StatusOK:
		return nil
	case ans.Status == http.StatusNotFound:
		return failure(provider.ErrGone, op, "%s", describe(ans))
	}
	return c.controlPlaneError(op, ans)
}
