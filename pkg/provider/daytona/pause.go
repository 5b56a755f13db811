package daytona

import (
	"context"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Pause stops the sandbox: Daytona keeps its files (not its memory) and
// stops charging for its CPU and memory; Reconnect starts it again, from
// the archive too when Daytona has archived it meanwhile. A stopped or
// archived sandbox is paused already; one on its way to started is waited
// for, then stopped. Pausing a started sandbox costs a look, the stop, and
// the looks until it has stopped.
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
				next, err := c.stopSandbox(ctx, op, sb.ID)
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
