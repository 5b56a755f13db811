package auxilia

import "time"

// PoolState says how a sandbox's warm pool is doing.
type PoolState string

// Pool states: off (size 0), ready (every instance made), creating (some on
// their way), waiting (short of its size with none on the way: the next
// pass of the pool job makes them, unless the workspace's instances quota
// is used up, which its detail then says), failing (creates fail; the pool backs off) and stopped (too
// many failures in a row: nothing is made until the sandbox is edited or
// probed healthy).
const (
	PoolOff      PoolState = "off"
	PoolReady    PoolState = "ready"
	PoolCreating PoolState = "creating"
	PoolWaiting  PoolState = "waiting"
	PoolFailing  PoolState = "failing"
	PoolStopped  PoolState = "stopped"
)

// PoolFailures is a pool's run of failed creates for one sandbox version.
type PoolFailures struct {
	SandboxID string
	Version   int // the sandbox version they count against
	Count     int // failed creates in a row
	LastError string
	RetryAt   *time.Time // no create before then
	StoppedAt *time.Time // set once Count reached the limit
}

// Waiting says whether the pool makes nothing now: stopped, or backing
// off until RetryAt.
func (f PoolFailures) Waiting(now time.Time) bool {
	return f.StoppedAt != nil || (f.RetryAt != nil && f.RetryAt.After(now))
}

// PoolStatus is what a sandbox's view shows of its warm pool.
type PoolStatus struct {
	State    PoolState
	Size     int
	Ready    int
	Creating int
	Failures int
	Detail   string     // why it fails, stopped, or waits on the quota; how many ready ones the quota paused
	RetryAt  *time.Time // when a failing pool tries again
}

// ProviderPool is a warm pool its provider keeps itself, as it stood when
// the pool job last told the provider its size.
type ProviderPool struct {
	SandboxID  string
	Version    int // the sandbox version it was kept for
	Size       int
	Ready      int
	Creating   int
	ObservedAt time.Time
}
