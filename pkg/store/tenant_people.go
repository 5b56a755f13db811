package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantPeople are the people of the handle's workspace.
type TenantPeople struct{ t Tenant }

// People returns the workspace's people.
func (t Tenant) People() TenantPeople { return TenantPeople{t} }

// List returns a page of the workspace's people, with their roles.
func (s TenantPeople) List(ctx context.Context, req auxilia.PageRequest) (auxilia.Page[auxilia.Member], error) {
	return s.t.db.people().Members(ctx, s.t.ws, req)
}

// SystemPeople sign people in before their workspace is known: they make
// the person, set their memberships from the provider's claims, and keep
// their sessions.
type SystemPeople struct{ s System }

// People returns every workspace's people and sessions.
func (s System) People() SystemPeople { return SystemPeople{s} }

// Upsert returns the person the issuer knows as subject, made on first sign-in.
func (s SystemPeople) Upsert(ctx context.Context, u auxilia.User) (auxilia.User, error) {
	return s.s.db.people().Upsert(ctx, u)
}

// SetMemberships replaces the person's memberships (workspace id to role).
func (s SystemPeople) SetMemberships(ctx context.Context, userID string, roles map[string]auxilia.Role) error {
	return s.s.db.people().SetMemberships(ctx, userID, roles)
}

// Role returns the person's role in the workspace; NotFound when none.
func (s SystemPeople) Role(ctx context.Context, userID, workspaceID string) (auxilia.Role, error) {
	return s.s.db.people().Role(ctx, userID, workspaceID)
}

// CreateSession stores a new session by the hashes of its cookie and CSRF token.
func (s SystemPeople) CreateSession(ctx context.Context, sess auxilia.Session, hash, csrfHash string) (auxilia.Session, error) {
	return s.s.db.people().CreateSession(ctx, sess, hash, csrfHash)
}

// SessionByHash returns the session whose cookie hashes to hash, the hash
// of its CSRF token, its person and workspace.
func (s SystemPeople) SessionByHash(ctx context.Context, hash string) (auxilia.Session, string, auxilia.User, auxilia.Workspace, error) {
	return s.s.db.people().SessionByHash(ctx, hash)
}

// TouchSession records the session's use at `at`, unless one after `since` is recorded.
func (s SystemPeople) TouchSession(ctx context.Context, id string, at, since time.Time) error {
	return s.s.db.people().TouchSession(ctx, id, at, since)
}

// Refreshed records that the provider re-checked the session's person at `at`.
func (s SystemPeople) Refreshed(ctx context.Context, id string, at time.Time, keyID, refreshToken string) error {
	return s.s.db.people().Refreshed(ctx, id, at, keyID, refreshToken)
}

// RevokeSession ends the session id.
func (s SystemPeople) RevokeSession(ctx context.Context, id string) error {
	return s.s.db.people().RevokeSession(ctx, id)
}

// RevokeUserSessions ends every session of the person.
func (s SystemPeople) RevokeUserSessions(ctx context.Context, userID string) error {
	return s.s.db.people().RevokeUserSessions(ctx, userID)
}
