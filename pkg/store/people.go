package store

import (
	"context"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

type userRow struct {
	ID           string `gorm:"primaryKey"`
	Issuer       string
	Subject      string
	Email        string
	Name         string
	CreatedAt    time.Time
	LastSignInAt time.Time
}

func (userRow) TableName() string { return "users" }

func (r userRow) domain() auxilia.User {
	return auxilia.User{ID: r.ID, Issuer: r.Issuer, Subject: r.Subject, Email: r.Email, Name: r.Name,
		CreatedAt: r.CreatedAt, LastSignInAt: r.LastSignInAt}
}

type membershipRow struct {
	UserID      string `gorm:"primaryKey"`
	WorkspaceID string `gorm:"primaryKey"`
	Role        string
	UpdatedAt   time.Time
}

func (membershipRow) TableName() string { return "memberships" }

type sessionRow struct {
	ID           string `gorm:"primaryKey"`
	Hash         string
	UserID       string
	WorkspaceID  string
	CSRFHash     string `gorm:"column:csrf_hash"`
	RefreshKeyID string
	RefreshToken string
	CreatedAt    time.Time
	LastSeenAt   time.Time
	RefreshedAt  time.Time
	ExpiresAt    time.Time
	RevokedAt    *time.Time
}

func (sessionRow) TableName() string { return "sessions" }

func (r sessionRow) domain() auxilia.Session {
	return auxilia.Session{ID: r.ID, UserID: r.UserID, WorkspaceID: r.WorkspaceID, RefreshToken: r.RefreshToken,
		RefreshKeyID: r.RefreshKeyID, CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt, RefreshedAt: r.RefreshedAt,
		ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
}

// peopleTable stores the people who sign in, their memberships and sessions.
type peopleTable struct{ db *DB }

func (db *DB) people() peopleTable { return peopleTable{db} }

// Upsert returns the person the issuer knows as subject, made on their first
// sign-in, with the email and name given now and this sign-in's time.
func (s peopleTable) Upsert(ctx context.Context, u auxilia.User) (auxilia.User, error) {
	now := Now()
	var row userRow
	err := s.db.conn(ctx).Where("issuer = ? AND subject = ?", u.Issuer, u.Subject).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		row = userRow{ID: auxilia.NewID(), Issuer: u.Issuer, Subject: u.Subject, Email: u.Email, Name: u.Name,
			CreatedAt: now, LastSignInAt: now}
		err = s.db.conn(ctx).Create(&row).Error
		if errors.Is(err, gorm.ErrDuplicatedKey) { // made meanwhile by another sign-in
			return s.Upsert(ctx, u)
		}
		return row.domain(), err
	}
	if err != nil {
		return auxilia.User{}, err
	}
	row.Email, row.Name, row.LastSignInAt = u.Email, u.Name, now
	err = s.db.conn(ctx).Model(&userRow{}).Where("id = ?", row.ID).
		Updates(map[string]any{"email": u.Email, "name": u.Name, "last_sign_in_at": now}).Error
	return row.domain(), err
}

// User returns the person id.
func (s peopleTable) User(ctx context.Context, id string) (auxilia.User, error) {
	var row userRow
	err := s.db.conn(ctx).Where("id = ?", id).Take(&row).Error
	return row.domain(), notFound(err, "user")
}

// SetMemberships replaces the person's memberships with roles (workspace id
// to role): what the provider's claims say now.
func (s peopleTable) SetMemberships(ctx context.Context, userID string, roles map[string]auxilia.Role) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.conn(ctx).Where("user_id = ?", userID).Delete(&membershipRow{}).Error; err != nil {
			return err
		}
		now := Now()
		for ws, role := range roles {
			row := membershipRow{UserID: userID, WorkspaceID: ws, Role: string(role), UpdatedAt: now}
			if err := s.db.conn(ctx).Create(&row).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// Role returns the person's role in the workspace; NotFound when they have none.
func (s peopleTable) Role(ctx context.Context, userID, workspaceID string) (auxilia.Role, error) {
	var row membershipRow
	err := s.db.conn(ctx).Where("user_id = ? AND workspace_id = ?", userID, workspaceID).Take(&row).Error
	return auxilia.Role(row.Role), notFound(err, "membership")
}

// Members returns a page of the workspace's people, with their roles.
func (s peopleTable) Members(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Member], error) {
	type memberRow struct {
		ID, Issuer, Subject, Email, Name, Role   string
		CreatedAt, LastSignInAt, MemberUpdatedAt time.Time
	}
	q := s.db.conn(ctx).Table("users").
		Select("users.id, users.issuer, users.subject, users.email, users.name, users.created_at, users.last_sign_in_at, "+
			"memberships.role, memberships.updated_at AS member_updated_at").
		Joins("JOIN memberships ON memberships.user_id = users.id").
		Where("memberships.workspace_id = ?", workspaceID)
	if req.After != "" {
		q = q.Where("users.id > ?", req.After)
	}
	var rows []memberRow
	if err := q.Order("users.id").Limit(req.Size + 1).Scan(&rows).Error; err != nil {
		return auxilia.Page[auxilia.Member]{}, err
	}
	return toPage(rows, req, func(r memberRow) string { return r.ID }, func(r memberRow) auxilia.Member {
		u := userRow{ID: r.ID, Issuer: r.Issuer, Subject: r.Subject, Email: r.Email, Name: r.Name,
			CreatedAt: r.CreatedAt, LastSignInAt: r.LastSignInAt}
		return auxilia.Member{User: u.domain(), Role: auxilia.Role(r.Role), UpdatedAt: r.MemberUpdatedAt}
	}), nil
}

// CreateSession stores a new session by the hashes of its cookie and its
// CSRF token, and returns it with its id.
func (s peopleTable) CreateSession(ctx context.Context, sess auxilia.Session, hash, csrfHash string) (auxilia.Session, error) {
	now := Now()
	row := sessionRow{ID: auxilia.NewID(), Hash: hash, UserID: sess.UserID, WorkspaceID: sess.WorkspaceID,
		CSRFHash: csrfHash, RefreshKeyID: sess.RefreshKeyID, RefreshToken: sess.RefreshToken,
		CreatedAt: now, LastSeenAt: now, RefreshedAt: now, ExpiresAt: sess.ExpiresAt.UTC()}
	err := s.db.conn(ctx).Create(&row).Error
	return row.domain(), err
}

// SessionByHash returns the session whose cookie hashes to hash (revoked or
// expired too), with the hash of its CSRF token, its person and workspace.
func (s peopleTable) SessionByHash(ctx context.Context, hash string) (auxilia.Session, string, auxilia.User, auxilia.Workspace, error) {
	var sess sessionRow
	if err := s.db.conn(ctx).Where("hash = ?", hash).Take(&sess).Error; err != nil {
		return auxilia.Session{}, "", auxilia.User{}, auxilia.Workspace{}, notFound(err, "session")
	}
	user, err := s.User(ctx, sess.UserID)
	if err != nil {
		return auxilia.Session{}, "", auxilia.User{}, auxilia.Workspace{}, err
	}
	var ws workspaceRow
	if err := s.db.conn(ctx).Where("id = ?", sess.WorkspaceID).Take(&ws).Error; err != nil {
		return auxilia.Session{}, "", auxilia.User{}, auxilia.Workspace{}, notFound(err, "workspace")
	}
	return sess.domain(), sess.CSRFHash, user, ws.domain(), nil
}

// TouchSession records that the session was used at `at`, unless a use
// after `since` is already recorded.
func (s peopleTable) TouchSession(ctx context.Context, id string, at, since time.Time) error {
	return s.db.conn(ctx).Model(&sessionRow{}).
		Where("id = ? AND last_seen_at < ?", id, since).
		Update("last_seen_at", at).Error
}

// Refreshed records that the provider was asked about the session's person
// at `at`, keeping the refresh token it gave (sealed; "" keeps the old one).
func (s peopleTable) Refreshed(ctx context.Context, id string, at time.Time, keyID, refreshToken string) error {
	set := map[string]any{"refreshed_at": at.UTC()}
	if refreshToken != "" {
		set["refresh_key_id"], set["refresh_token"] = keyID, refreshToken
	}
	return s.db.conn(ctx).Model(&sessionRow{}).Where("id = ?", id).Updates(set).Error
}

// RevokeSession ends the session id.
func (s peopleTable) RevokeSession(ctx context.Context, id string) error {
	return s.db.conn(ctx).Model(&sessionRow{}).Where("id = ? AND revoked_at IS NULL", id).
		Update("revoked_at", Now()).Error
}

// RevokeUserSessions ends every session of the person.
func (s peopleTable) RevokeUserSessions(ctx context.Context, userID string) error {
	return s.db.conn(ctx).Model(&sessionRow{}).Where("user_id = ? AND revoked_at IS NULL", userID).
		Update("revoked_at", Now()).Error
}
