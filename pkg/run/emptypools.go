package run

import (
	"sync"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// emptyPools remembers the warm pools that a choice's claim (in the
// start's turn) lately found without a ready instance, so that a burst of
// new threads does not ask an emptied pool again ahead of each turn
// (claimAhead): those claims cost the database as much as one that finds
// an instance, and in a burst they run beside the starts the pool does
// serve. The choice still asks the pool, so that nothing is lost to a
// stale memory but time. (A claim ahead that finds nothing proves
// nothing: its thread may exist already.) A pool is known empty until an
// instance of it is made here (createPooled), a claim finds one, or
// emptyPoolsFor has passed: another process may have filled it.
type emptyPools struct {
	mu    sync.Mutex
	since map[poolKey]time.Time
}

// emptyPoolsFor is how long a pool found empty is skipped, unless this
// process learns sooner that it is not.
const emptyPoolsFor = time.Second

// poolKey is a pool: its sandbox, as of a version (a new version has a
// pool of its own).
type poolKey struct {
	sandboxID string
	version   int
}

func newEmptyPools() *emptyPools { return &emptyPools{since: map[poolKey]time.Time{}} }

func keyOf(sb auxilia.Sandbox) poolKey { return poolKey{sb.ID, sb.Version} }

// found records what a claim on sb's pool found at now: an instance, or none.
func (e *emptyPools) found(sb auxilia.Sandbox, instance bool, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if instance {
		delete(e.since, keyOf(sb))
		return
	}
	e.since[keyOf(sb)] = now
	// Forget what has expired, so that the map holds no more than the
	// pools found empty within emptyPoolsFor.
	for k, at := range e.since {
		if now.Sub(at) >= emptyPoolsFor {
			delete(e.since, k)
		}
	}
}

// filled forgets that sb's pool was found empty: an instance of it is ready.
func (e *emptyPools) filled(sb auxilia.Sandbox) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.since, keyOf(sb))
}

// known tells whether sb's pool was found empty within emptyPoolsFor of now.
func (e *emptyPools) known(sb auxilia.Sandbox, now time.Time) bool { return e.knownKey(keyOf(sb), now) }

// knownKey is known for the pool k.
func (e *emptyPools) knownKey(k poolKey, now time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	at, ok := e.since[k]
	return ok && now.Sub(at) < emptyPoolsFor
}
