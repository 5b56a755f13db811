// Package sandbox is the registry of sandboxes: registering, reading,
// editing, probing and deleting them, with each configuration validated by
// its provider and each secret sealed at rest.
package sandbox

import (
	"context"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// Store keeps one workspace's sandboxes.
type Store interface {
	Create(ctx context.Context, sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.Sandbox, error)
	Get(ctx context.Context, id string) (auxilia.Sandbox, error)
	GetSealed(ctx context.Context, id string) (auxilia.Sandbox, auxilia.SealedSecret, error)
	List(ctx context.Context, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error)
	Update(ctx context.Context, sb auxilia.Sandbox, sealed *auxilia.SealedSecret) (auxilia.Sandbox, error)
	Delete(ctx context.Context, id string, version int) error
	SetHealth(ctx context.Context, id string, h auxilia.Health) error
}

// Retained reaches every workspace's sandboxes, deleted ones too: for the
// jobs that destroy what a deleted sandbox left, and for key rotation.
type Retained interface {
	GetSealedAny(ctx context.Context, id string) (auxilia.Sandbox, auxilia.SealedSecret, error)
	ResealSecrets(ctx context.Context, fn func(sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error)) (int, error)
}

// Bindings knows which of a workspace's agents use a sandbox.
type Bindings interface {
	AgentsOf(ctx context.Context, sandboxID string, req auxilia.PageRequest) (auxilia.Page[auxilia.AgentRef], error)
	AgentIDsOf(ctx context.Context, sandboxID string) ([]string, error)
	DeleteForSandbox(ctx context.Context, sandboxID string) (int64, error)
}

// Instances releases the provider instances a sandbox made.
type Instances interface {
	ReleaseForSandbox(ctx context.Context, sandboxID string) (int64, error)
}

// Transactor runs work atomically under named locks.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
	Lock(ctx context.Context, name string) error
}

// Registry manages a workspace's sandboxes.
type Registry struct {
	Deps
	probeTimeout time.Duration
	clients      *clientCache
	shapes       *shapeCache
}

// Deps are what the registry works with.
type Deps struct {
	// Store, Bindings and Instances are the store bound to a workspace.
	Store     func(workspaceID string) Store
	Bindings  func(workspaceID string) Bindings
	Instances func(workspaceID string) Instances
	Retained  Retained
	Audit     auxilia.Auditor
	Tx        Transactor
	Providers *provider.Registry
	Keys      *secret.Keyring
	// ProbeTimeout bounds a probe (default 10 s).
	ProbeTimeout time.Duration
	// Metrics counts provider calls and failed probes (default: nothing).
	Metrics auxilia.Metrics
}

// New returns a registry.
func New(d Deps) *Registry {
	timeout := d.ProbeTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	if d.Metrics == nil {
		d.Metrics = auxilia.NoMetrics{}
	}
	return &Registry{Deps: d, probeTimeout: timeout, clients: newClientCache(), shapes: newShapeCache()}
}

// Create registers a sandbox in the workspace.
func (r *Registry) Create(ctx context.Context, workspaceID string, in Input) (auxilia.Sandbox, error) {
	secretValue := deref(in.Secret)
	spec, fe := r.validateSpec(auxilia.SandboxSpec{Name: in.Name, Description: in.Description, Provider: in.Provider,
		URL: in.URL, Config: in.Config, HasSecret: secretValue != ""}, true)
	if secretValue != "" {
		checkSecret(&fe, secretValue)
	}
	if err := fe.Err(); err != nil {
		return auxilia.Sandbox{}, err
	}
	if err := r.checkAtProvider(ctx, spec, secretValue).Err(); err != nil {
		return auxilia.Sandbox{}, err
	}
	sb := auxilia.Sandbox{ID: auxilia.NewID(), WorkspaceID: workspaceID, SandboxSpec: spec}
	sealed, hint, err := r.seal(sb.ID, secretValue)
	if err != nil {
		return auxilia.Sandbox{}, err
	}
	sb.Secret = hint
	var out auxilia.Sandbox
	err = r.Tx.InTx(ctx, func(ctx context.Context) error {
		if out, err = r.Store(workspaceID).Create(ctx, sb, sealed); err != nil {
			return err
		}
		return auxilia.Audit(ctx, r.Audit, workspaceID, "sandbox.create", "sandbox", sb.ID,
			fmt.Sprintf("registered %s sandbox %q", sb.Provider, sb.Name))
	})
	return out, err
}

// Get returns a sandbox of the workspace.
func (r *Registry) Get(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, error) {
	sb, err := r.Store(workspaceID).Get(ctx, id)
	return r.current(sb), err
}

// List returns a page of the workspace's sandboxes; with name set, only the one of that name.
func (r *Registry) List(ctx context.Context, workspaceID, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error) {
	page, err := r.Store(workspaceID).List(ctx, name, req)
	for i, sb := range page.Items {
		page.Items[i] = r.current(sb)
	}
	return page, err
}

// SecretHint returns what may be shown of a sandbox's secret.
func (r *Registry) SecretHint(ctx context.Context, workspaceID, id string) (auxilia.SecretHint, error) {
	sb, err := r.Store(workspaceID).Get(ctx, id)
	return sb.Secret, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
