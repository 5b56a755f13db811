// Package sandbox is the registry of sandboxes: registering, reading,
// editing, probing and deleting them, with each configuration validated by
// its provider and each secret sealed at rest.
package sandbox

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/secret"
)

// Store keeps sandboxes.
type Store interface {
	Create(ctx context.Context, sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.Sandbox, error)
	Get(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, error)
	GetSealed(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, auxilia.SealedSecret, error)
	List(ctx context.Context, workspaceID, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error)
	Update(ctx context.Context, sb auxilia.Sandbox, sealed *auxilia.SealedSecret) (auxilia.Sandbox, error)
	Delete(ctx context.Context, workspaceID, id string, expect *int) error
	SetHealth(ctx context.Context, id string, h auxilia.Health) error
}

// Transactor runs work atomically.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Registry manages a workspace's sandboxes.
type Registry struct {
	store        Store
	tx           Transactor
	providers    *provider.Registry
	keys         *secret.Keyring
	probeTimeout time.Duration
	clients      *clientCache
}

// Options configure a Registry.
type Options struct {
	// ProbeTimeout bounds a probe (default 10 s).
	ProbeTimeout time.Duration
}

// New returns a registry.
func New(store Store, tx Transactor, providers *provider.Registry, keys *secret.Keyring, opt Options) *Registry {
	if opt.ProbeTimeout <= 0 {
		opt.ProbeTimeout = 10 * time.Second
	}
	return &Registry{store: store, tx: tx, providers: providers, keys: keys,
		probeTimeout: opt.ProbeTimeout, clients: newClientCache()}
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
	sb := auxilia.Sandbox{ID: auxilia.NewID(), WorkspaceID: workspaceID, SandboxSpec: spec}
	sealed, hint, err := r.seal(sb.ID, secretValue)
	if err != nil {
		return auxilia.Sandbox{}, err
	}
	sb.Secret = hint
	return r.store.Create(ctx, sb, sealed)
}

// Get returns a sandbox of the workspace.
func (r *Registry) Get(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, error) {
	return r.store.Get(ctx, workspaceID, id)
}

// List returns a page of the workspace's sandboxes; with name set, only the one of that name.
func (r *Registry) List(ctx context.Context, workspaceID, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error) {
	return r.store.List(ctx, workspaceID, name, req)
}

// SecretHint returns what may be shown of a sandbox's secret.
func (r *Registry) SecretHint(ctx context.Context, workspaceID, id string) (auxilia.SecretHint, error) {
	sb, err := r.store.Get(ctx, workspaceID, id)
	return sb.Secret, err
}

// Delete removes a sandbox. expect, when set, is the version the caller last read.
func (r *Registry) Delete(ctx context.Context, workspaceID, id string, expect *int) error {
	return r.store.Delete(ctx, workspaceID, id, expect)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
