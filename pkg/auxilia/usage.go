package auxilia

import "time"

// Metered instance states.
const (
	UsageRunning = "running"
	UsagePaused  = "paused"
)

// Other metered spans, kept beside the instances' intervals: a command the
// execute tool ran, an interactive terminal, kept files.
const (
	UsageCommand  = "command"
	UsageTerminal = "terminal"
	UsageKept     = "kept"
)

// UsageTerminalStale is how long an open terminal may go unseen before it
// is taken for one whose server died: it then counts until it was last
// seen. An open terminal is seen every 20 seconds.
const UsageTerminalStale = time.Minute

// Counted instance events.
const (
	UsageCreated  = "created"  // an instance went live
	UsageFailed   = "failed"   // an instance was let go before it was ever live
	UsageReplaced = "replaced" // a live instance was found gone at its provider
)

// CommandUse is one command the execute tool ran, metered from its sending
// to its provider's answer, with its run's attribution.
type CommandUse struct {
	RunID     string
	SandboxID string
	Provider  string
	AgentID   string
	ThreadID  string
	Started   time.Time
	Ended     time.Time
}

// UsageInterval is a stretch of one instance in one metered state, as the
// database recorded it with the lifecycle's transitions, or of a command,
// a terminal or kept files (State says which). End is zero while it lasts.
// AgentID and ThreadID are empty for a pool's unclaimed instance.
type UsageInterval struct {
	InstanceID  string
	WorkspaceID string
	SandboxID   string
	SandboxName string
	Provider    string
	AgentID     string
	AgentName   string
	ThreadID    string
	ThreadKey   string
	State       string // UsageRunning, UsagePaused, UsageCommand, UsageTerminal or UsageKept
	Start       time.Time
	End         time.Time
	Bytes       int64 // of kept files
}

// UsageEvent is one counted instance event.
type UsageEvent struct {
	InstanceID  string
	WorkspaceID string
	SandboxID   string
	SandboxName string
	Provider    string
	AgentID     string
	AgentName   string
	ThreadID    string
	ThreadKey   string
	Kind        string // UsageCreated, UsageFailed or UsageReplaced
	At          time.Time
}

// UsageHour is one closed hour's usage by one workspace, sandbox, provider,
// agent and thread, summed from the metered rows by the rollup.
type UsageHour struct {
	Hour            time.Time
	WorkspaceID     string
	SandboxID       string
	SandboxName     string
	Provider        string
	AgentID         string
	AgentName       string
	ThreadID        string
	ThreadKey       string
	RunningSeconds  float64
	PausedSeconds   float64
	Created         int
	Failed          int
	Replaced        int
	Commands        int
	CommandSeconds  float64
	TerminalSeconds float64
	KeptByteSeconds float64
}

// WorkspaceUsage is one workspace's usage at a moment, for the operator's
// metrics: instances in each state now, instance-seconds in each state
// since the start of the UTC month, and events counted ever.
type WorkspaceUsage struct {
	Workspace    string             // its name
	Instances    map[string]int     // by metered state, now
	MonthSeconds map[string]float64 // by metered state, this UTC month
	Events       map[string]int64   // by kind, ever
	// Ever: commands run, their seconds, terminal seconds (open terminals
	// until last seen) and kept files' byte-seconds (kept ones until now).
	Commands        int64
	CommandSeconds  float64
	TerminalSeconds float64
	KeptByteSeconds float64
	// KeptBytes are the bytes of kept files now.
	KeptBytes int64
}
