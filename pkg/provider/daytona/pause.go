package daytona

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Pause pauses the sandbox with its memory where Daytona can (POST
// /sandbox/{id}/pause, which goes through "pausing" to "paused"), and
// stops it where it cannot: an API without the route (before v0.190)
// answers 404, a sandbox of a class Daytona does not pause (a container)
// 422. A stopped sandbox keeps its files, not its memory. Either way
// Daytona stops charging for its CPU and memory; Reconnect starts it
// again (a start resumes a paused one), from the archive too when Daytona
// has archived it meanwhile. A paused, stopped or archived sandbox is
// paused already; one on its way to started is waited for, then paused.
// Pausing a started sandbox costs a look, the pause (and the stop it falls
// back to), and the looks until it has settled.
func (c *Client) Pause(ctx context.Context, inst provider.Instance) error {
	const op = "pause"
	sb, err := c.getSandbox(ctx, op, inst.ID)
	if err != nil {
		return err
	}
	stopAsked, seen := false, true
	err = c.waits.settle().Until(ctx, func(ctx context.Context) (string, bool, error) {
		if !seen {
			next, err := c.getSandbox(ctx, op, sb.ID)
			if err != nil {
				return "", false, err
			}
			sb = next
		}
		seen = false
		switch phaseOf(sb.State) {
		case phaseAsleep:
			return sb.State, asleep(sb), nil
		case phaseGone:
			return "", false, goneError(op, sb)
		case phaseStuck:
			return "", false, failure(provider.ErrFailed, op, "sandbox %s is in state %q: Daytona has lost track of it on its runner", sb.ID, sb.State)
		case phaseReady:
			if !stopAsked {
				stopAsked = true
				next, err := c.pauseSandbox(ctx, op, sb.ID)
				if err != nil {
					return "", false, err
				}
				sb = next
			}
		}
		return sb.State, asleep(sb), nil
	})
	return outwaited(ctx, op, err, func(still *provider.StillError) error {
		return failure(provider.ErrTimeout, op, "sandbox %s is %s", sb.ID, still)
	})
}

// asleep says whether a sandbox keeps its files without running: stopped
// or archived, and not being started (an archived sandbox being restored
// reads "archived" until it is).
func asleep(sb sandbox) bool {
	return phaseOf(sb.State) == phaseAsleep && sb.DesiredState != "started"
}

// stopSandbox asks Daytona to stop a sandbox.
func (c *Client) stopSandbox(ctx context.Context, op, id string) (sandbox, error) {
	return c.changeState(ctx, op, id, "stop")
}

// pauseSandbox asks Daytona to pause a sandbox with its memory, and to stop
// it where it cannot (pause in Daytona's apps/api/src/sandbox/controllers/
// sandbox.controller.ts and services/sandbox.service.ts): NestJS's 404
// "Cannot POST …" is an API without the route, remembered; a 422 is
// "Pausing is not supported for this sandbox", a class other than
// linux-vm and windows. A 400 says the sandbox is no longer started: look
// again.
func (c *Client) pauseSandbox(ctx context.Context, op, id string) (sandbox, error) {
	if c.withoutPause.Load() {
		return c.stopSandbox(ctx, op, id)
	}
	ans, err := c.do(ctx, c.controlPlane(op, http.MethodPost, "/sandbox/"+url.PathEscape(id)+"/pause", nil))
	if err != nil {
		return sandbox{}, err
	}
	switch {
	case ans.Status == http.StatusOK || ans.Status == http.StatusCreated:
		return decodeSandbox(op, ans)
	case ans.Status == http.StatusNotFound && strings.HasPrefix(messageOf(ans), "Cannot POST"):
		c.withoutPause.Store(true)
		return c.stopSandbox(ctx, op, id)
	case ans.Status == http.StatusUnprocessableEntity:
		return c.stopSandbox(ctx, op, id)
	case ans.Status == http.StatusBadRequest && !overQuota(ans):
		return c.getSandbox(ctx, op, id)
	default:
		return sandbox{}, c.controlPlaneError(op, ans)
	}
}
