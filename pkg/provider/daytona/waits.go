package daytona

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/provider"
)

// Waits bounds how long the client polls Daytona and retries its refusals.
// A zero field takes its default.
type Waits struct {
	// PollFirst is the first pause between two looks at a sandbox's state;
	// pauses double up to PollMax.
	PollFirst time.Duration
	PollMax   time.Duration
	// Settle is the longest the client waits for a sandbox to start (a
	// restore from the archive takes minutes) or to be destroyed.
	Settle time.Duration
	// Retry is the longest one call is retried while Daytona answers 429
	// (rate limited) or 409 (state change in progress).
	Retry time.Duration
	// Request is the longest one call may take, besides a command's own run time.
	Request time.Duration
}

// DefaultWaits are the bounds of a Kind that sets none.
func DefaultWaits() Waits {
	return Waits{
		PollFirst: 250 * time.Millisecond,
		PollMax:   5 * time.Second,
		Settle:    5 * time.Minute,
		Retry:     90 * time.Second,
		Request:   2 * time.Minute,
	}
}

func (w Waits) withDefaults() Waits {
	pick := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	def := DefaultWaits()
	return Waits{
		PollFirst: pick(w.PollFirst, def.PollFirst),
		PollMax:   pick(w.PollMax, def.PollMax),
		Settle:    pick(w.Settle, def.Settle),
		Retry:     pick(w.Retry, def.Retry),
		Request:   pick(w.Request, def.Request),
	}
}

// backoff is the pauses between two looks: PollFirst, doubling, capped at PollMax.
func (w Waits) backoff() provider.Backoff {
	return provider.Backoff{First: w.PollFirst, Max: w.PollMax}
}

// settle polls a sandbox on its way to a state, for at most Settle.
func (w Waits) settle() provider.Poll {
	return provider.Poll{Backoff: w.backoff(), Within: w.Settle}
}
