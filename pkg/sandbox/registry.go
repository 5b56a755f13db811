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

// Instances releases the provider instances a sandbox made, and ends the
// runs that worked in them.
type Instances interface {
	ReleaseForSandbox(ctx context.Context, sandboxID string) (int64, error)
	EndRunsForSandbox(ctx context.Context, sandboxID, notice string) (int64, error)
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
	runHealth    *runHealth
	probes       *sharedProbes
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
	return &Registry{Deps: d, probeTimeout: timeout, clients: newClientCache(), shapes: newShapeCache(), runHealth: newRunHealth(),
		probes: newSharedProbes()}
}

// Create registers a sandbox in the workspace.
func (r *Registry) Create(ctx context.Context, workspaceID string, in Input) (auxilia.Sandbox, error) {
	sb, secretValue, err := r.newSandbox(ctx, workspaceID, in)
	if err != nil {
		return auxilia.Sandbox{}, err
	}
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

// newSandbox validates in as a whole and returns the sandbox it makes (with
// a new id, its secret not yet sealed) and its secret.
func (r *Registry) newSandbox(ctx context.Context, workspaceID string, in Input) (auxilia.Sandbox, string, error) {
	secretValue := deref(in.Secret)
	spec, fe := r.validateSpec(auxilia.SandboxSpec{Name: in.Name, Description: in.Description, Provider: in.Provider,
		URL: in.URL, Config: in.Config, HasSecret: secretValue != ""}, true)
	if secretValue != "" {
		checkSecret(&fe, secretValue)
	}
	auxilia.CheckManagedBy(&fe, in.ManagedBy)
	if err := fe.Err(); err != nil {
		return auxilia.Sandbox{}, "", err
	}
	if err := r.checkAtProvider(ctx, spec, secretValue).Err(); err != nil {
		return auxilia.Sandbox{}, "", err
	}
	return auxilia.Sandbox{ID: auxilia.NewID(), WorkspaceID: workspaceID, SandboxSpec: spec, ManagedBy: in.ManagedBy}, secretValue, nil
}

// PreviewCreate answers as Create would (the sandbox as it would be made,
// or the same error, a taken name included) and saves and audits nothing.
func (r *Registry) PreviewCreate(ctx context.Context, workspaceID string, in Input) (auxilia.Sandbox, error) {
	sb, secretValue, err := r.newSandbox(ctx, workspaceID, in)
	if err != nil {
		return auxilia.Sandbox{}, err
	}
	if err := r.nameFree(ctx, workspaceID, sb); err != nil {
		return auxilia.Sandbox{}, err
	}
	sb.Secret = hintOf(secretValue)
	sb.Health = auxilia.Health{Status: auxilia.HealthUnknown}
	sb.Version = 1
	sb.CreatedAt = time.Now().UTC().Truncate(time.Microsecond)
	sb.UpdatedAt = sb.CreatedAt
	return sb, nil
}

// nameFree is the conflict a save of sb would meet when another live
// sandbox of the workspace has its name.
func (r *Registry) nameFree(ctx context.Context, workspaceID string, sb auxilia.Sandbox) error {
	page, err := r.Store(workspaceID).List(ctx, sb.Name, auxilia.PageRequest{Size: 1})
	if err != nil {
		return err
	}
	for _, other := range page.Items {
		if other.ID != sb.ID {
			return auxilia.Errorf(auxilia.CodeConflict, "A sandbox named %q already exists in this workspace.", sb.Name).
				With("existing_id", other.ID)
		}
	}
	return nil
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
