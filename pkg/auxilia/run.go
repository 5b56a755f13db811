package auxilia

import (
	"regexp"
	"time"
)

// ThreadKeyPattern is what a caller-chosen thread id is made of.
const ThreadKeyPattern = `^[A-Za-z0-9._:-]{1,128}$`

var threadKeyChars = regexp.MustCompile(ThreadKeyPattern)

// ValidThreadKey reports whether a caller-chosen thread id may be used: 1
// to 128 letters, digits and . _ : -, but not "." or "..", which in a URL
// path (the id's place) name another path and are resolved before sending.
func ValidThreadKey(key string) bool {
	return key != "." && key != ".." && threadKeyChars.MatchString(key)
}

// Thread is a conversation of an agent, keyed by the caller's id. It
// remembers the instance its runs work in.
type Thread struct {
	ID          string // ours
	WorkspaceID string
	AgentID     string
	Key         string // the caller's thread id
	Instance    *Instance
	LastRunAt   *time.Time
	// LastActivityAt is the thread's last run start or tool call.
	LastActivityAt *time.Time
	// Kept are the thread's newest kept files, if any.
	Kept *KeptFiles
	// PausesAt is when its live instance will be paused if nothing happens
	// (nil: it will not be); the run service works it out.
	PausesAt  *time.Time
	CreatedAt time.Time
}

// KeptFiles are a thread's working folder kept beyond its instance by the
// instance's provider: a snapshot, an archive, a folder.
type KeptFiles struct {
	ID          string
	WorkspaceID string
	SandboxID   string
	ThreadID    string // "" once released: the reaper deletes it
	ProviderRef string // the provider's id for it
	State       SealedSecret
	At          time.Time // when the files were kept
	ForgetAfter time.Time // when the reaper deletes them
	Bytes       int64     // their size as the provider reported it; 0 when it did not
}

// InstanceStatus is where an instance is in its life.
type InstanceStatus string

// Instance statuses: a thread points only at a creating or live instance;
// a released one waits for the reaper to destroy it at the provider.
const (
	InstanceCreating  InstanceStatus = "creating"
	InstanceLive      InstanceStatus = "live"
	InstanceReleased  InstanceStatus = "released"
	InstanceDestroyed InstanceStatus = "destroyed"
)

// StartView is what a run start reads first, in one round trip: the
// thread's live instance (Live false where it has none), the agent with its
// binding, and the sandbox bound with its sealed secret (Sandbox.ID ""
// where there is none), each as one statement saw it.
type StartView struct {
	Instance Instance
	Live     bool
	Agent    Agent
	Sandbox  Sandbox
	Sealed   SealedSecret
	// Claim is what the view's PoolClaim did, when it was asked one.
	Claim PoolClaimed
}

// PoolClaim asks a run start's view to give a thread not made yet a ready
// instance of its agent's sandbox's warm pool in the same round trip, as
// the view's agent was last seen: bound to SandboxID at Version, whose pool
// hands out instances ready since FreshAfter. The claim checks in the
// database that the agent is bound so still, and makes nothing otherwise.
type PoolClaim struct {
	SandboxID  string
	Version    int
	FreshAfter time.Time
}

// PoolClaimed is what a view's PoolClaim did: Tried false where the store
// cannot claim within the view (the start then claims on its own), and
// else the instance claimed, if any.
type PoolClaimed struct {
	Tried    bool
	Instance *Instance
}

// CallView is what a tool call of a run looks at first, read in one round
// trip (store.TenantRuns.CallView): the run, its agent with its binding,
// the sandbox the agent is bound to (none when deleted) with its sealed
// secret, and the run's instance (HasInstance false when there is none).
type CallView struct {
	Run         Run
	Agent       Agent
	Sandbox     Sandbox
	Sealed      SealedSecret
	Instance    Instance
	HasInstance bool
}

// Instance is a sandbox instance at a provider, made for a thread or, by
// a warm pool, for the thread that will claim it.
type Instance struct {
	ID          string
	WorkspaceID string
	SandboxID   string
	ThreadID    string
	ProviderRef string // the provider's id for it; "" until created
	WorkDir     string
	State       SealedSecret // the provider's data about it, sealed
	Status      InstanceStatus
	CreatedBy   string     // the run that is creating it
	LeaseUntil  *time.Time // a creating instance's claim ends then
	// PausedAt is set while a live instance is paused at its provider.
	PausedAt    *time.Time
	PoolVersion int // the sandbox version a warm pool made it from; 0 when made for its thread
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// RunStatus is where a run is in its life.
type RunStatus string

// Run statuses.
const (
	RunActive    RunStatus = "active"
	RunCompleted RunStatus = "completed"
	RunExpired   RunStatus = "expired"
)

// RunEnd is what ended a run.
type RunEnd string

// What ends runs.
const (
	EndedByCaller         RunEnd = "caller"          // End run, or its MCP session closing
	EndedByNewerRun       RunEnd = "newer_run"       // a newer run on its thread
	EndedByIdle           RunEnd = "idle"            // no tool call for longer than the idle timeout
	EndedBySandboxDeleted RunEnd = "sandbox_deleted" // its sandbox's delete
	EndedByAgentUnbound   RunEnd = "agent_unbound"   // its agent lost or changed sandbox
)

// Run is one turn of an agent on a thread.
type Run struct {
	ID          string
	WorkspaceID string
	AgentID     string
	ThreadID    string // ours
	ThreadKey   string // the caller's
	Status      RunStatus
	// The sandbox it runs with; empty when the agent has none.
	SandboxID      string
	SandboxName    string
	SandboxDeleted bool // the sandbox was deleted since the run started
	Provider       string
	InstanceID     string // ours
	InstanceRef    string // the provider's
	Created        bool   // the run made a new instance
	Replaced       bool   // …because the thread's earlier one was gone
	Notice         string
	StartedAt      time.Time
	LastActivityAt time.Time
	EndedAt        *time.Time
	EndedBy        RunEnd // empty while active (and for runs ended before it was kept)
}

// StartFailure is a run start refused because the agent's sandbox could not
// be used, kept with its thread: the notice its caller was shown, when, and
// which sandbox (named as it was then: it may be deleted since).
type StartFailure struct {
	ID          string
	WorkspaceID string
	ThreadID    string // ours
	SandboxID   string
	SandboxName string
	// Reason is the probe's reason code (auth, network, config, provider…).
	Reason string
	Notice string
	At     time.Time
}

// InstanceUse is a sandbox's active instance with the thread it works for:
// what a sandbox's page lists. A warm pool's instance has no thread yet.
type InstanceUse struct {
	Instance
	SandboxName    string     // the sandbox that made it
	ThreadKey      string     // the caller's thread id; "" for a pooled instance
	AgentID        string     // the thread's agent; "" for a pooled instance
	AgentName      string     // the agent's name
	LastActivityAt *time.Time // the thread's last run start or tool call
}

// InstanceFilter picks a workspace's active instances: each set field
// narrows the list. State is creating, live (and not paused) or paused.
type InstanceFilter struct {
	SandboxID string
	AgentID   string
	State     string
}

// Instance states a list may be narrowed to.
var InstanceStates = []string{"creating", "live", "paused"}

// RunFilter picks the runs of a workspace's recent list: each set field
// narrows it. Status expired also takes the active runs idle since before
// IdleBefore, and status active leaves them out, as the API shows them.
type RunFilter struct {
	AgentID    string
	SandboxID  string
	Status     RunStatus
	IdleBefore time.Time
}
