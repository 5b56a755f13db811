package auxilia

import "time"

// User is a person who signed in with the identity provider, known by the
// provider's issuer and subject.
type User struct {
	ID           string
	Issuer       string
	Subject      string
	Email        string
	Name         string
	CreatedAt    time.Time
	LastSignInAt time.Time
}

// DisplayName is how the audit log and the console name the person.
func (u User) DisplayName() string {
	if u.Email != "" {
		return u.Email
	}
	if u.Name != "" {
		return u.Name
	}
	return u.Subject
}

// Member is a person with their role in one workspace.
type Member struct {
	User
	Role      Role
	UpdatedAt time.Time
}

// Session is a person's console session, kept by the hash of its cookie.
type Session struct {
	ID          string
	UserID      string
	WorkspaceID string
	// RefreshToken is the provider's refresh token, sealed ("" when the
	// provider gave none: the session is re-checked at the userinfo endpoint).
	RefreshToken string
	RefreshKeyID string
	CreatedAt    time.Time
	LastSeenAt   time.Time
	RefreshedAt  time.Time
	ExpiresAt    time.Time
	RevokedAt    *time.Time
}
