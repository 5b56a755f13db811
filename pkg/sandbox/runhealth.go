package sandbox

import (
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// runHealthEvery is how often runs' probes and reconnects record an
// unchanged healthy state: runs are frequent, and each record is a write
// of the sandbox's one row, on which a burst of runs would queue.
const runHealthEvery = 30 * time.Second

// runHealth remembers, per sandbox, when this process last recorded a run's
// healthy probe, so that a burst of runs writes it once rather than once
// each: the sandbox a run read before the burst does not show the others'.
type runHealth struct {
	mu     sync.Mutex
	lastOK map[string]time.Time
}

func newRunHealth() *runHealth { return &runHealth{lastOK: map[string]time.Time{}} }

// due says whether a run's probe outcome is to be recorded: always a
// failure; a success unless the sandbox as read was recorded healthy within
// runHealthEvery, or this process recorded it healthy within runHealthEvery
// and nothing was recorded since (a failure the health job found must be
// overwritten by the next success). A success that is due is taken as
// recorded at once, so that the runs probing beside it skip theirs.
func (h *runHealth) due(sb auxilia.Sandbox, ok bool, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !ok {
		delete(h.lastOK, sb.ID)
		return true
	}
	checked := sb.Health.CheckedAt
	if sb.Health.Status == auxilia.HealthOK && checked != nil && now.Sub(*checked) < runHealthEvery {
		return false
	}
	if last, seen := h.lastOK[sb.ID]; seen && now.Sub(last) < runHealthEvery && (checked == nil || !checked.After(last)) {
		return false
	}
	if len(h.lastOK) >= maxCachedClients {
		h.lastOK = map[string]time.Time{} // one entry a sandbox: past the bound, start over
	}
	h.lastOK[sb.ID] = now
	return true
}
