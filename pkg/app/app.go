// Package app wires the server's parts together on a database: the one
// place that knows which store backs which service.
package app

import (
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
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/token"
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
}

// New wires the services on db, sealing secrets with keys.
func New(db *store.DB, keys *secret.Keyring, o Options) *App {
	kinds := o.Kinds
	if kinds == nil {
		kinds = builtin.Kinds(builtin.Options{DataDir: o.DataDir, LocalCeilings: o.LocalCeilings, LocalJailIDs: o.LocalJailIDs, LocalIsolation: o.LocalIsolation})
	}
	providers := provider.NewRegistry(o.Policy, o.Operator, kinds...)
	sandboxes := sandbox.New(sandbox.Deps{Store: db.Sandboxes(), Bindings: db.Bindings(), Instances: db.Instances(),
		Audit: db.Audit(), Tx: db, Providers: providers, Keys: keys, ProbeTimeout: o.ProbeTimeout, Metrics: o.Metrics})
	db.CheckSandboxesWith(sandboxes.Check)
	agents := agent.New(agent.Deps{Agents: db.Agents(), Bindings: db.Bindings(), Sandboxes: db.Sandboxes(),
		Instances: db.Instances(), Audit: db.Audit(), Tx: db})
	return &App{
		DB: db, Keys: keys, Providers: providers,
		Tokens:    token.New(db.Tokens(), db.Workspaces(), db, db.Audit()),
		Sandboxes: sandboxes,
		Agents:    agents,
		Runs: run.New(run.Deps{Agents: agents, Threads: db.Threads(), Instances: db.Instances(), Kept: db.Kept(), Runs: db.Runs(),
			Approvals: db.Approvals(),
			Sandboxes: sandboxes, Keys: keys, Audit: db.Audit(), Tx: db, Options: o.Run, Metrics: o.Metrics,
			Pools: db.Pools()}),
	}
}
