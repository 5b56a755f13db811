package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantSandboxes are the sandboxes of the handle's workspace.
type TenantSandboxes struct{ t Tenant }

// Sandboxes returns the workspace's sandboxes.
func (t Tenant) Sandboxes() TenantSandboxes { return TenantSandboxes{t} }

// Create stores a new sandbox in the workspace (sb's workspace is ignored).
func (s TenantSandboxes) Create(ctx context.Context, sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.Sandbox, error) {
	sb.WorkspaceID = s.t.ws
	return s.t.db.sandboxes().Create(ctx, sb, sealed)
}

// Get returns a live sandbox of the workspace.
func (s TenantSandboxes) Get(ctx context.Context, id string) (auxilia.Sandbox, error) {
	return s.t.db.sandboxes().Get(ctx, s.t.ws, id)
}

// GetSealed returns a live sandbox of the workspace with its sealed secret.
func (s TenantSandboxes) GetSealed(ctx context.Context, id string) (auxilia.Sandbox, auxilia.SealedSecret, error) {
	return s.t.db.sandboxes().GetSealed(ctx, s.t.ws, id)
}

// List returns a page of the workspace's live sandboxes, only the one
// called name when it is set.
func (s TenantSandboxes) List(ctx context.Context, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error) {
	return s.t.db.sandboxes().List(ctx, s.t.ws, name, req)
}

// Update saves sb's spec (and its new secret when sealed is not nil) if the
// stored version is still sb.Version (sb's workspace is ignored).
func (s TenantSandboxes) Update(ctx context.Context, sb auxilia.Sandbox, sealed *auxilia.SealedSecret) (auxilia.Sandbox, error) {
	sb.WorkspaceID = s.t.ws
	return s.t.db.sandboxes().Update(ctx, sb, sealed)
}

// Delete removes a live sandbox from view, if it is still at the version
// the caller read.
func (s TenantSandboxes) Delete(ctx context.Context, id string, version int) error {
	return s.t.db.sandboxes().Delete(ctx, s.t.ws, id, version)
}

// SetHealth records what a probe of the sandbox id found.
func (s TenantSandboxes) SetHealth(ctx context.Context, id string, h auxilia.Health) error {
	return s.t.db.sandboxes().SetHealth(ctx, id, h)
}

// SystemSandboxes are every workspace's sandboxes, deleted ones too.
type SystemSandboxes struct{ s System }

// Sandboxes returns every workspace's sandboxes.
func (s System) Sandboxes() SystemSandboxes { return SystemSandboxes{s} }

// GetSealedAny returns a sandbox by id, deleted or not, with its sealed
// secret: what a deleted sandbox left is destroyed with its credentials.
func (s SystemSandboxes) GetSealedAny(ctx context.Context, id string) (auxilia.Sandbox, auxilia.SealedSecret, error) {
	return s.s.db.sandboxes().GetSealedAny(ctx, id)
}

// ResealSecrets calls fn with every stored sandbox secret and stores what
// it returns.
func (s SystemSandboxes) ResealSecrets(ctx context.Context, fn func(sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error)) (int, error) {
	return s.s.db.sandboxes().ResealSecrets(ctx, fn)
}

// Unchecked returns up to limit live sandboxes whose health is older than before.
func (s SystemSandboxes) Unchecked(ctx context.Context, before time.Time, limit int) ([]auxilia.Sandbox, error) {
	return s.s.db.sandboxes().Unchecked(ctx, before, limit)
}
