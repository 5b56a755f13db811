// Package app wires the server's parts together on a database: the one
// place that knows which store backs which service.
package app

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/agent"
	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/bubblewrap"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/provider/local"
	"github.com/auxilia/sandboxes/pkg/run"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/sso"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/token"
	"github.com/auxilia/sandboxes/pkg/usage"
)

// Options are the parts of the server's configuration the services need.
type Options struct {
	DataDir string
	Policy  provider.Policy
	// Operator is the providers' operator settings, which may switch some off.
	Operator     provider.OperatorValues
	ProbeTimeout time.Duration
	Run          run.Options
	// Kinds replaces the built-in providers (tests use fakes).
	Kinds []provider.Kind
	// Metrics counts what operators watch (default: nothing).
	Metrics auxilia.Metrics
	// LocalCeilings are the most one local instance may ask for.
	LocalCeilings local.Ceilings
	// LocalJailIDs are the host users local instances' jails run as.
	LocalJailIDs bubblewrap.IDs
	// LocalIsolation is how local instances may be isolated.
	LocalIsolation local.Isolation
	// LocalPackageIndex is the index local instances install their
	// default packages from ("": PyPI's).
	LocalPackageIndex string
	// Cost is the operator's rates per provider, to estimate usage's cost.
	Cost usage.Options
}

// App is the server's services on one database.
type App struct {
	DB        *store.DB
	Keys      *secret.Keyring
	Providers *provider.Registry
	Tokens    *token.Service
	Sandboxes *sandbox.Registry
	Agents    *agent.Service
	Runs      *run.Service
	// Audit is the audit trail the API appends to and lists.
	Audit AuditLog
	// Requests keep each token's Idempotency-Key answers and rate windows.
	Requests store.SystemRequests
	// Usage reports what each workspace's instances used.
	Usage *usage.Service
	// Quotas are the limits the operator set on each workspace.
	Quotas Quotas
	// People are each workspace's people, who sign in with the identity provider.
	People People
}

// New wires the services on db, sealing secrets with keys.
func New(db *store.DB, keys *secret.Keyring, o Options) *App {
	kinds := o.Kinds
	if kinds == nil {
		kinds = builtin.Kinds(builtin.Options{DataDir: o.DataDir, LocalCeilings: o.LocalCeilings, LocalJailIDs: o.LocalJailIDs, LocalIsolation: o.LocalIsolation, LocalPackageIndex: o.LocalPackageIndex})
	}
	providers := provider.NewRegistry(o.Policy, o.Operator, kinds...)
	audit := db.System("audit").Audit()
	sandboxes := sandbox.New(sandbox.Deps{
		Store:     func(ws string) sandbox.Store { return db.In(ws).Sandboxes() },
		Bindings:  func(ws string) sandbox.Bindings { return db.In(ws).Bindings() },
		Instances: func(ws string) sandbox.Instances { return db.In(ws).Instances() },
		Retained:  db.System("retained sandboxes").Sandboxes(),
		Audit:     audit, Tx: db, Providers: providers, Keys: keys, ProbeTimeout: o.ProbeTimeout, Metrics: o.Metrics})
	db.CheckSandboxesWith(sandboxes.Check)
	agents := agent.New(agent.Deps{
		Agents:    func(ws string) agent.Store { return db.In(ws).Agents() },
		Bindings:  func(ws string) agent.Bindings { return db.In(ws).Bindings() },
		Sandboxes: func(ws string) agent.Sandboxes { return db.In(ws).Sandboxes() },
		Instances: func(ws string) agent.Instances { return db.In(ws).Instances() },
		Audit:     audit, Tx: db})
	runs := run.New(run.Deps{
		Agents:        agents,
		Threads:       func(ws string) run.Threads { return db.In(ws).Threads() },
		Instances:     func(ws string) run.Instances { return db.In(ws).Instances() },
		Kept:          func(ws string) run.Kept { return db.In(ws).Kept() },
		Runs:          func(ws string) run.Runs { return db.In(ws).Runs() },
		Approvals:     func(ws string) run.Approvals { return db.In(ws).Approvals() },
		StartFailures: func(ws string) run.StartFailures { return db.In(ws).StartFailures() },
		Jobs:          db.System("run jobs").Runs(),
		Pools:         db.System("pools").Pools(),
		WarmPools:     func(ws string) run.WarmPools { return db.In(ws).Pools() },
		Quotas:        func(ws string) run.Quotas { return db.In(ws).Quotas() },
		Sandboxes:     sandboxes, Keys: keys, Audit: audit, Tx: db,
		Options: o.Run, Metrics: o.Metrics})
	cost := o.Cost
	cost.Pending = runs.FlushMeters
	metered := NewUsage(db, cost)
	return &App{
		DB: db, Keys: keys, Providers: providers,
		Tokens:    NewTokens(db),
		Audit:     AuditLog{db},
		Quotas:    NewQuotas(db, metered, o.Cost.Currency),
		People:    People{db},
		Requests:  db.System("requests").Requests(),
		Usage:     metered,
		Sandboxes: sandboxes,
		Agents:    agents,
		Runs:      runs,
	}
}

// NewUsage is the usage reports on db, costed at the operator's rates (the
// command line measures cost budgets with it too).
func NewUsage(db *store.DB, o usage.Options) *usage.Service {
	return usage.New(func(ws string) usage.Store { return db.In(ws).Usage() }, o)
}

// NewTokens is the token service on db (the command line issues tokens with it too).
func NewTokens(db *store.DB) *token.Service {
	return token.New(func(ws string) token.Store { return db.In(ws).Tokens() }, db.System("authentication").Tokens(),
		db.System("workspaces").Workspaces(), db, db.System("audit").Audit())
}

// NewSessions is single sign-on with the identity provider cfg names, on db.
func NewSessions(db *store.DB, keys *secret.Keyring, cfg sso.Config) *sso.Service {
	return sso.New(cfg, db.System("sign-in").People(), db.System("workspaces").Workspaces(), db, db.System("audit").Audit(), keys)
}

// People lists each workspace's people through its handle.
type People struct{ db *store.DB }

// People returns a page of the workspace's people, with their roles.
func (p People) People(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Member], error) {
	return p.db.In(workspaceID).People().List(ctx, req)
}

// AuditLog is the audit trail as the API uses it: services and refusals
// append entries naming their workspace, and a workspace lists its own
// through its handle.
type AuditLog struct{ db *store.DB }

// Append records an entry, in the transaction ctx carries when there is one.
func (l AuditLog) Append(ctx context.Context, e auxilia.AuditEntry) error {
	return l.db.System("audit").Audit().Append(ctx, e)
}

// List returns a page of the workspace's entries, newest first.
func (l AuditLog) List(ctx context.Context, workspaceID string, f auxilia.AuditFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.AuditEntry], error) {
	return l.db.In(workspaceID).Audit().List(ctx, f, req)
}
