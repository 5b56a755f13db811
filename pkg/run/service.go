// Package run gives every run of an agent on a thread a live sandbox
// instance: it probes the provider, reconnects the thread's instance or
// creates (or replaces) one, records the run, and serves the sandbox tools
// under the binding's policies. A reaper destroys what is no longer needed.
package run

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// Agents finds agents with their bindings.
type Agents interface {
	Get(ctx context.Context, workspaceID, id string) (auxilia.Agent, error)
}

// Threads keeps one workspace's conversation threads.
type Threads interface {
	Lock(ctx context.Context, agentID, key string) (auxilia.Thread, error)
	LockExisting(ctx context.Context, agentID, key string) (auxilia.Thread, error)
	Get(ctx context.Context, agentID, key string) (auxilia.Thread, error)
	List(ctx context.Context, agentID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Thread], error)
	// StartView is what a run start looks at first, read without a lock
	// in one round trip: the thread's live instance, the agent, its sandbox.
	// It claims from a warm pool too, for a new thread, where claim asks.
	StartView(ctx context.Context, agentID, key string, claim *auxilia.PoolClaim) (auxilia.StartView, error)
	Delete(ctx context.Context, id string) error
}

// Jobs finds, across workspaces, what the background jobs work on; they
// act on each row through its own workspace's store.
type Jobs interface {
	IdlePage(ctx context.Context, after string, before time.Time, limit int) ([]auxilia.Thread, error)
	IdleInWorkspace(ctx context.Context, workspaceID string, before time.Time, limit int) ([]auxilia.Thread, error)
	Idle(ctx context.Context, before time.Time, limit int) ([]auxilia.Run, error)
	ExpireLeases(ctx context.Context, now time.Time) (int64, error)
	Reapable(ctx context.Context, limit int) ([]auxilia.Instance, error)
	PurgeDestroyed(ctx context.Context, before time.Time) (int64, error)
	Forgettable(ctx context.Context, now time.Time, limit int) ([]auxilia.KeptFiles, error)
}

// Instances keeps the instances one workspace's threads work in.
type Instances interface {
	Claim(ctx context.Context, t auxilia.Thread, sandboxID, runID string, lease time.Time) (auxilia.Instance, error)
	Get(ctx context.Context, id string) (auxilia.Instance, error)
	MarkLive(ctx context.Context, id, providerRef, workDir string, state auxilia.SealedSecret) (bool, error)
	SetState(ctx context.Context, id string, state auxilia.SealedSecret) error
	MarkPaused(ctx context.Context, id string, quietSince, at time.Time) (bool, error)
	MarkResumed(ctx context.Context, id string) error
	Release(ctx context.Context, id string) error
	MarkDestroyed(ctx context.Context, id string) error
	SetProviderRef(ctx context.Context, id, providerRef string) error
	// ThreadInstances are the live instances threads work in on a sandbox.
	ThreadInstances(ctx context.Context, sandboxID string) ([]auxilia.Instance, error)
}

// Kept keeps what threads' instances kept of their files.
type Kept interface {
	Add(ctx context.Context, k auxilia.KeptFiles) (auxilia.KeptFiles, error)
	Delete(ctx context.Context, id string) error
}

// Runs keeps runs.
type Runs interface {
	// Start records a run's start on its thread, locking the thread, and
	// returns it with the thread's instance id (store.TenantRuns.Start).
	Start(ctx context.Context, r auxilia.Run) (auxilia.Run, string, error)
	// StartOnInstance records a run's start on the instance of its thread
	// threadID, with its audit entry, in one round trip where it can, and
	// says whether it did (store.TenantRuns.StartOnInstance).
	StartOnInstance(ctx context.Context, r auxilia.Run, threadID string, e auxilia.AuditEntry) (auxilia.Run, bool, error)
	Get(ctx context.Context, id string) (auxilia.Run, error)
	// CallView is what a tool call of the run looks at first, read in one
	// round trip (store.TenantRuns.CallView).
	CallView(ctx context.Context, runID string) (auxilia.CallView, error)
	List(ctx context.Context, threadID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error)
	Touch(ctx context.Context, id string, at time.Time, every time.Duration) error
	End(ctx context.Context, id string, status auxilia.RunStatus) (bool, error)
	// Commands meters commands of the workspace's runs in one statement.
	Commands(ctx context.Context, uses []auxilia.CommandUse) error
	// TerminalOpened, TerminalSeen and TerminalClosed meter a terminal
	// (id) of the run: seen while open, so that one whose server died
	// counts only until it was last seen.
	TerminalOpened(ctx context.Context, runID, id string, at time.Time) error
	TerminalSeen(ctx context.Context, id string, at time.Time) error
	TerminalClosed(ctx context.Context, id string, at time.Time) error
}

// StartFailures keeps a workspace's refused run starts with their threads.
type StartFailures interface {
	Add(ctx context.Context, f auxilia.StartFailure) (auxilia.StartFailure, error)
	List(ctx context.Context, threadID string, req auxilia.PageRequest) (auxilia.Page[auxilia.StartFailure], error)
}

// Sandboxes opens provider clients for sandboxes and keeps their health.
type Sandboxes interface {
	Client(ctx context.Context, workspaceID, id string) (provider.Client, auxilia.Sandbox, error)
	// ClientOf is Client for a sandbox already read, with its sealed secret.
	ClientOf(sb auxilia.Sandbox, sealed auxilia.SealedSecret) (provider.Client, auxilia.Sandbox, error)
	RetainedClient(ctx context.Context, id string) (provider.Client, auxilia.Sandbox, error)
	Config(sb auxilia.Sandbox) (provider.Config, error)
	// Describe is what the sandbox's provider says about itself.
	Describe(sb auxilia.Sandbox) (provider.Descriptor, error)
	// WarmPool is Config's pool, without decoding the config on every read.
	WarmPool(sb auxilia.Sandbox) (provider.Pool, error)
	Probe(ctx context.Context, sb auxilia.Sandbox, client provider.Client) sandbox.ProbeResult
	Observe(ctx context.Context, sb auxilia.Sandbox, err error, took time.Duration)
}

// Transactor runs work atomically.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Options tune the service; zero values take the defaults.
type Options struct {
	// IdleTimeout expires a run with no tool call for this long (default 1 h).
	IdleTimeout time.Duration
	// CreateLease bounds how long an instance may take to be created
	// (packages included) before others presume its creator dead (default 15 min).
	CreateLease time.Duration
	// InstallTimeout bounds the installation of default packages (default 10 min).
	InstallTimeout time.Duration
	// KeepAliveEvery is how often a long tool call tells the provider the
	// instance is in use (default 5 min: well inside OpenSandbox's 30-minute
	// TTL and Daytona's shortest useful auto-stop).
	KeepAliveEvery time.Duration
	// OutputLimit caps the output of a command kept for its answer (default 256 KiB).
	OutputLimit int
	// KeepAfterIdle is how long a thread whose sandbox keeps files always
	// may be idle before its files are kept (unless it pauses sooner):
	// well inside OpenSandbox's 30-minute expiry (default 10 min).
	KeepAfterIdle time.Duration
	// Clock tells the idle job, and the reaper when it deletes kept files,
	// the time (default time.Now): tests move it on.
	Clock func() time.Time
	// PoolEvery is how often the warm pools are kept: retired and topped up (default 10 s).
	PoolEvery time.Duration
	// ChoosingAtOnce bounds the run starts, warm ones aside, that read
	// their agent and sandbox and choose their thread's instance at once
	// (turn.go); the others wait their turn in the order they came, holding
	// nothing. A burst's first new threads thus take a pool's instances
	// without sharing the database and the processors with the reads of all
	// those behind them.
	// Below the statements the store runs at once, it leaves some to the
	// starts past their choice: the run that took a pool's instance is not
	// recorded behind the choices of the starts that came after it
	// (default 10; the server gives half the store's statements at once).
	ChoosingAtOnce int
	// CreatesPerSandbox bounds the instances runs create at once for one
	// sandbox in this process; the others wait their turn in the order they
	// came, holding no database connection (default 32). The warm pools'
	// refills are bounded apart (poolParallel), so neither starves the other.
	CreatesPerSandbox int
}

func (o Options) withDefaults() Options {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = time.Hour
	}
	if o.CreateLease <= 0 {
		o.CreateLease = 15 * time.Minute
	}
	if o.InstallTimeout <= 0 {
		o.InstallTimeout = 10 * time.Minute
	}
	if o.KeepAliveEvery <= 0 {
		o.KeepAliveEvery = 5 * time.Minute
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.KeepAfterIdle <= 0 {
		o.KeepAfterIdle = 10 * time.Minute
	}
	if o.PoolEvery <= 0 {
		o.PoolEvery = 10 * time.Second
	}
	if o.ChoosingAtOnce <= 0 {
		o.ChoosingAtOnce = 10
	}
	if o.CreatesPerSandbox <= 0 {
		o.CreatesPerSandbox = 32
	}
	if o.OutputLimit <= 0 {
		o.OutputLimit = provider.DefaultOutputLimit
	}
	return o
}

// Deps are what the service works with.
type Deps struct {
	Agents Agents
	// Threads, Instances, Kept, Runs and Approvals are the store bound to
	// a workspace.
	Threads   func(workspaceID string) Threads
	Instances func(workspaceID string) Instances
	Kept      func(workspaceID string) Kept
	Runs      func(workspaceID string) Runs
	Approvals func(workspaceID string) Approvals
	// StartFailures keeps refused starts (nil: they are not kept).
	StartFailures func(workspaceID string) StartFailures
	// Jobs is the store the background jobs search across workspaces.
	Jobs      Jobs
	Sandboxes Sandboxes
	Keys      *secret.Keyring
	Audit     auxilia.Auditor
	Tx        Transactor
	Options   Options
	// Metrics counts runs and instances (default: nothing).
	Metrics auxilia.Metrics
	// Pools keeps warm pools for the pool job, and WarmPools a workspace's
	// for its runs and views (both nil: sandboxes have none).
	Pools     Pools
	WarmPools func(workspaceID string) WarmPools
	// Quotas are a workspace's limits with their use (nil: none); the store
	// enforces them where it records instances, and the pools stop at them.
	Quotas func(workspaceID string) Quotas
}

// Quotas tells a workspace's limits and its use of each.
type Quotas interface {
	Use(ctx context.Context) ([]auxilia.QuotaUse, error)
}

// Service runs agents on threads.
type Service struct {
	Deps
	opt        Options
	creating   *waiters
	meter      *commandMeter  // commands' meters, written after their answers (meter.go)
	choosing   *queue         // the starts' turns to read and choose (turn.go)
	creates    *sandboxQueues // the runs' creates, per sandbox (start.go)
	empty      *emptyPools    // the warm pools lately found empty (emptypools.go)
	plans      *claimPlans    // the pools agents' new threads claim from (claimplans.go)
	strategies []strategy     // how a thread gets its instance, in order (allocate.go)
}

// New returns a run service.
func New(d Deps) *Service {
	if d.Metrics == nil {
		d.Metrics = auxilia.NoMetrics{}
	}
	opt := d.Options.withDefaults()
	s := &Service{Deps: d, opt: opt, creating: newWaiters(), choosing: newQueue(opt.ChoosingAtOnce),
		creates: newSandboxQueues(opt.CreatesPerSandbox), empty: newEmptyPools(), plans: newClaimPlans(), strategies: defaultStrategies(d.Pools != nil)}
	s.meter = newCommandMeter(func(ctx context.Context, workspaceID string, uses []auxilia.CommandUse) error {
		return s.Runs(workspaceID).Commands(ctx, uses)
	})
	return s
}

// FlushMeters waits until the meters of the commands answered so far are
// written (commandMeter): before their usage is read, and before the
// server stops.
func (s *Service) FlushMeters(ctx context.Context) error { return s.meter.flush(ctx) }
