package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantTokens are the API tokens of the handle's workspace.
type TenantTokens struct{ t Tenant }

// Tokens returns the workspace's tokens.
func (t Tenant) Tokens() TenantTokens { return TenantTokens{t} }

// Create stores a new token of the workspace with the given value hash (t's
// workspace is ignored).
func (s TenantTokens) Create(ctx context.Context, t auxilia.Token, hash string) (auxilia.Token, error) {
	t.WorkspaceID = s.t.ws
	return s.t.db.tokens().Create(ctx, t, hash)
}

// Get returns the live token id of the workspace.
func (s TenantTokens) Get(ctx context.Context, id string) (auxilia.Token, error) {
	return s.t.db.tokens().Get(ctx, s.t.ws, id)
}

// List returns one page of the workspace's live tokens.
func (s TenantTokens) List(ctx context.Context, req auxilia.PageRequest) (auxilia.Page[auxilia.Token], error) {
	return s.t.db.tokens().List(ctx, s.t.ws, req)
}

// Revoke ends the live token id of the workspace.
func (s TenantTokens) Revoke(ctx context.Context, id string) error {
	return s.t.db.tokens().Revoke(ctx, s.t.ws, id)
}

// AddTicket stores a terminal ticket for a token of the workspace.
func (s TenantTokens) AddTicket(ctx context.Context, t auxilia.TerminalTicket, hash string) error {
	return s.t.db.tokens().AddTicket(ctx, t, hash)
}

// SystemTokens find tokens before their workspace is known: to
// authenticate a request, redeem a ticket, or bootstrap the first admin.
type SystemTokens struct{ s System }

// Tokens returns every workspace's tokens.
func (s System) Tokens() SystemTokens { return SystemTokens{s} }

// ByHash returns the token whose value hashes to hash, with its workspace.
func (s SystemTokens) ByHash(ctx context.Context, hash string) (auxilia.Token, auxilia.Workspace, error) {
	return s.s.db.tokens().ByHash(ctx, hash)
}

// ByID returns the token id (revoked or not), with its workspace.
func (s SystemTokens) ByID(ctx context.Context, id string) (auxilia.Token, auxilia.Workspace, error) {
	return s.s.db.tokens().ByID(ctx, id)
}

// Touch records that the token was used at `at`, unless a use after `since` is already recorded.
func (s SystemTokens) Touch(ctx context.Context, id string, at, since time.Time) error {
	return s.s.db.tokens().Touch(ctx, id, at, since)
}

// AnyLive reports whether a live token exists; with role set, one of that role.
func (s SystemTokens) AnyLive(ctx context.Context, role auxilia.Role) (bool, error) {
	return s.s.db.tokens().AnyLive(ctx, role)
}

// HashExists reports whether any token, live or revoked, has this hash.
func (s SystemTokens) HashExists(ctx context.Context, hash string) (bool, error) {
	return s.s.db.tokens().HashExists(ctx, hash)
}

// ClaimTicket takes the unexpired ticket whose value hashes to hash, once.
func (s SystemTokens) ClaimTicket(ctx context.Context, hash string, now time.Time) (auxilia.TerminalTicket, error) {
	return s.s.db.tokens().ClaimTicket(ctx, hash, now)
}

// SystemWorkspaces are the workspaces themselves.
type SystemWorkspaces struct{ s System }

// Workspaces returns the workspaces.
func (s System) Workspaces() SystemWorkspaces { return SystemWorkspaces{s} }

// ByName returns the workspace called name.
func (s SystemWorkspaces) ByName(ctx context.Context, name string) (auxilia.Workspace, error) {
	return s.s.db.workspaces().ByName(ctx, name)
}

// Ensure returns the workspace called name, creating it when missing.
func (s SystemWorkspaces) Ensure(ctx context.Context, name string) (auxilia.Workspace, error) {
	return s.s.db.workspaces().Ensure(ctx, name)
}
