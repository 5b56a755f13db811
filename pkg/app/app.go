// Package app wires the server's parts together on a database: the one
// place that knows which store backs which service.
package app

import (
	"time"

	"github.com/auxilia/sandboxes/pkg/agent"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/provider/builtin"
	"github.com/auxilia/sandboxes/pkg/sandbox"
	"github.com/auxilia/sandboxes/pkg/secret"
	"github.com/auxilia/sandboxes/pkg/store"
	"github.com/auxilia/sandboxes/pkg/token"
)

// Options are the parts of the server's configuration the services need.
type Options struct {
	DataDir       string
	Policy        provider.Policy
	LocalDisabled string // why the local provider is off; "" when it is on
	ProbeTimeout  time.Duration
}

// App is the server's services on one database.
type App struct {
	DB        *store.DB
	Keys      *secret.Keyring
	Providers *provider.Registry
	Tokens    *token.Service
	Sandboxes *sandbox.Registry
	Agents    *agent.Service
}

// New wires the services on db, sealing secrets with keys.
func New(db *store.DB, keys *secret.Keyring, o Options) *App {
	providers := provider.NewRegistry(o.Policy, builtin.Kinds(builtin.Options{DataDir: o.DataDir})...)
	if o.LocalDisabled != "" {
		providers.Disable("local", o.LocalDisabled)
	}
	sandboxes := sandbox.New(sandbox.Deps{Store: db.Sandboxes(), Bindings: db.Bindings(), Instances: db.Instances(),
		Audit: db.Audit(), Tx: db, Providers: providers, Keys: keys, ProbeTimeout: o.ProbeTimeout})
	db.CheckSandboxesWith(sandboxes.Check)
	return &App{
		DB: db, Keys: keys, Providers: providers,
		Tokens:    token.New(db.Tokens(), db.Workspaces(), db, db.Audit()),
		Sandboxes: sandboxes,
		Agents: agent.New(agent.Deps{Agents: db.Agents(), Bindings: db.Bindings(), Sandboxes: db.Sandboxes(),
			Instances: db.Instances(), Audit: db.Audit(), Tx: db}),
	}
}
