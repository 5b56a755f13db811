package auxilia

import (
	"context"
	"time"
)

// Role decides what a token may do.
type Role string

// Roles. Admins manage sandboxes and tokens; members use what admins set up.
const (
	RoleAdmin  Role = "admin"
	RoleMember Role = "member"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleAdmin || r == RoleMember }

// Token is an API bearer token as stored: its value is never kept, only a hash.
type Token struct {
	ID          string
	WorkspaceID string
	Name        string
	Role        Role
	// CreatedBy names the person who made the token in the console ("" when
	// a token or the command line made it).
	CreatedBy  string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// Actor is who makes a request: the authenticated token, or the person
// signed in to the console, and its workspace.
type Actor struct {
	TokenID   string // "" for a person signed in
	TokenName string
	// UserID, UserName and SessionID name the person signed in with single
	// sign-on ("" for a token).
	UserID       string
	UserName     string // what the audit log names them by
	UserEmail    string
	UserFullName string
	SessionID    string
	Role         Role
	Workspace    Workspace
}

// Principal is what requests are counted and remembered by: the token, or
// the person.
func (a Actor) Principal() string {
	if a.TokenID != "" {
		return a.TokenID
	}
	return a.UserID
}

type actorKey struct{}

// WithActor returns a context carrying the actor of the request.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor the context carries, if any.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}
