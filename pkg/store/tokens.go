package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

type tokenRow struct {
	ID          string `gorm:"primaryKey"`
	WorkspaceID string
	Name        string
	Role        string
	Hash        string
	CreatedBy   string
	CreatedAt   time.Time
	LastUsedAt  *time.Time
	RevokedAt   *time.Time
}

func (tokenRow) TableName() string { return "tokens" }

func (r tokenRow) domain() auxilia.Token {
	return auxilia.Token{ID: r.ID, WorkspaceID: r.WorkspaceID, Name: r.Name, Role: auxilia.Role(r.Role),
		CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, RevokedAt: r.RevokedAt}
}

// tokenTable stores API tokens by the hash of their value.
type tokenTable struct{ db *DB }

func (db *DB) tokens() tokenTable { return tokenTable{db} }

// Create stores a new token with the given value hash and returns it with its id.
func (s tokenTable) Create(ctx context.Context, t auxilia.Token, hash string) (auxilia.Token, error) {
	row := tokenRow{ID: auxilia.NewID(), WorkspaceID: t.WorkspaceID, Name: t.Name, Role: string(t.Role),
		Hash: hash, CreatedBy: t.CreatedBy, CreatedAt: Now()}
	if err := s.db.conn(ctx).Create(&row).Error; err != nil {
		return auxilia.Token{}, err
	}
	return row.domain(), nil
}

// ByHash returns the token whose value hashes to hash (revoked or not), with
// its workspace, in one query: every request asks it.
func (s tokenTable) ByHash(ctx context.Context, hash string) (auxilia.Token, auxilia.Workspace, error) {
	return s.byWhere(ctx, "tokens.hash = ?", hash)
}

// ByID returns the token id (revoked or not), with its workspace.
func (s tokenTable) ByID(ctx context.Context, id string) (auxilia.Token, auxilia.Workspace, error) {
	return s.byWhere(ctx, "tokens.id = ?", id)
}

func (s tokenTable) byWhere(ctx context.Context, where string, arg string) (auxilia.Token, auxilia.Workspace, error) {
	row, err := takeRow[tokenWithWorkspace](ctx, s.db, "SELECT "+tokenWithWorkspaceColumns+
		" FROM tokens JOIN workspaces ON workspaces.id = tokens.workspace_id WHERE "+where+" LIMIT 1", arg)
	if err != nil {
		return auxilia.Token{}, auxilia.Workspace{}, notFound(err, "token")
	}
	row.workspace.ID = row.token.WorkspaceID
	return row.token.domain(), row.workspace, nil
}

// tokenWithWorkspace is a token's row joined with its workspace's.
type tokenWithWorkspace struct {
	token     tokenRow
	workspace auxilia.Workspace
}

const tokenWithWorkspaceColumns = "tokens.id, tokens.workspace_id, tokens.name, tokens.role, tokens.hash, " +
	"tokens.created_at, tokens.last_used_at, tokens.revoked_at, workspaces.name AS ws_name, workspaces.created_at AS ws_created_at"

func (r *tokenWithWorkspace) scanTargets() []any {
	t, w := &r.token, &r.workspace
	return []any{&t.ID, &t.WorkspaceID, &t.Name, &t.Role, &t.Hash, &t.CreatedAt, &t.LastUsedAt, &t.RevokedAt,
		&w.Name, &w.CreatedAt}
}

// Get returns the live token id of the workspace.
func (s tokenTable) Get(ctx context.Context, workspaceID, id string) (auxilia.Token, error) {
	var row tokenRow
	err := s.db.conn(ctx).Where("workspace_id = ? AND id = ? AND revoked_at IS NULL", workspaceID, id).Take(&row).Error
	return row.domain(), notFound(err, "token")
}

// List returns one page of the workspace's live tokens.
func (s tokenTable) List(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Token], error) {
	var rows []tokenRow
	q := s.db.conn(ctx).Where("workspace_id = ? AND revoked_at IS NULL", workspaceID)
	if err := pageQuery(q, req).Find(&rows).Error; err != nil {
		return auxilia.Page[auxilia.Token]{}, err
	}
	return toPage(rows, req, func(r tokenRow) string { return r.ID }, tokenRow.domain), nil
}

// Revoke ends the live token id of the workspace.
func (s tokenTable) Revoke(ctx context.Context, workspaceID, id string) error {
	res := s.db.conn(ctx).Model(&tokenRow{}).
		Where("workspace_id = ? AND id = ? AND revoked_at IS NULL", workspaceID, id).
		Update("revoked_at", Now())
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return auxilia.NotFound("token")
	}
	return nil
}

// Touch records that the token was used at `at`, unless a use after `since` is already recorded.
func (s tokenTable) Touch(ctx context.Context, id string, at, since time.Time) error {
	return s.db.conn(ctx).Model(&tokenRow{}).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", id, since).
		Update("last_used_at", at).Error
}

// AnyLive reports whether a live token exists; with role set, one of that role.
func (s tokenTable) AnyLive(ctx context.Context, role auxilia.Role) (bool, error) {
	q := s.db.conn(ctx).Model(&tokenRow{}).Where("revoked_at IS NULL")
	if role != "" {
		q = q.Where("role = ?", string(role))
	}
	var n int64
	err := q.Limit(1).Count(&n).Error
	return n > 0, err
}

// HashExists reports whether any token, live or revoked, has this hash.
func (s tokenTable) HashExists(ctx context.Context, hash string) (bool, error) {
	var n int64
	err := s.db.conn(ctx).Model(&tokenRow{}).Where("hash = ?", hash).Count(&n).Error
	return n > 0, err
}
