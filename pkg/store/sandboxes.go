package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

type sandboxRow struct {
	ID               string `gorm:"primaryKey"`
	WorkspaceID      string
	Name             string
	Description      string
	Provider         string
	URL              string
	Config           string
	SecretKeyID      string
	SecretCiphertext string
	SecretLast4      string
	SecretLength     int
	HealthStatus     string
	HealthCheckedAt  *time.Time
	HealthLatencyMS  *int `gorm:"column:health_latency_ms"`
	HealthDetail     string
	HealthHistory    string
	ManagedBy        string
	Version          int
	CreatedAt        time.Time
	UpdatedAt        time.Time
	DeletedAt        *time.Time
}

func (sandboxRow) TableName() string { return "sandboxes" }

// sandboxColumns are sandboxRow's columns, in the order of its scanTargets.
const sandboxColumns = "id, workspace_id, name, description, provider, url, config, secret_key_id, " +
	"secret_ciphertext, secret_last4, secret_length, health_status, health_checked_at, health_latency_ms, " +
	"health_detail, health_history, managed_by, version, created_at, updated_at, deleted_at"

func (r *sandboxRow) scanTargets() []any {
	return []any{&r.ID, &r.WorkspaceID, &r.Name, &r.Description, &r.Provider, &r.URL, &r.Config, &r.SecretKeyID,
		&r.SecretCiphertext, &r.SecretLast4, &r.SecretLength, &r.HealthStatus, &r.HealthCheckedAt, &r.HealthLatencyMS,
		&r.HealthDetail, &r.HealthHistory, &r.ManagedBy, &r.Version, &r.CreatedAt, &r.UpdatedAt, &r.DeletedAt}
}

const sandboxCheckKey = "auxilia:sandbox_check"

// BeforeSave validates the row with the check the DB was given: the last
// line of defence, so that no route can store an invalid sandbox.
func (r *sandboxRow) BeforeSave(tx *gorm.DB) error {
	check, ok := tx.Get(sandboxCheckKey)
	if !ok {
		return errors.New("store: no sandbox check configured (call DB.CheckSandboxesWith)")
	}
	return check.(auxilia.SandboxCheck)(r.domain().SandboxSpec)
}

func (r sandboxRow) domain() auxilia.Sandbox {
	return auxilia.Sandbox{
		ID: r.ID, WorkspaceID: r.WorkspaceID,
		SandboxSpec: auxilia.SandboxSpec{Name: r.Name, Description: r.Description, Provider: r.Provider,
			URL: r.URL, Config: []byte(r.Config), HasSecret: r.SecretCiphertext != ""},
		Secret: auxilia.SecretHint{IsSet: r.SecretCiphertext != "", Last4: r.SecretLast4, Length: r.SecretLength},
		Health: auxilia.Health{Status: auxilia.HealthStatus(r.HealthStatus), CheckedAt: r.HealthCheckedAt,
			LatencyMS: r.HealthLatencyMS, Detail: r.HealthDetail, History: parseHistory(r.HealthHistory)},
		ManagedBy: r.ManagedBy, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

func (r sandboxRow) sealed() auxilia.SealedSecret {
	return auxilia.SealedSecret{KeyID: r.SecretKeyID, Ciphertext: r.SecretCiphertext}
}

// sandboxTable stores registered sandboxes.
type sandboxTable struct{ db *DB }

func (db *DB) sandboxes() sandboxTable { return sandboxTable{db} }

// CheckSandboxesWith sets the validation every sandbox save runs.
func (db *DB) CheckSandboxesWith(check auxilia.SandboxCheck) { db.sandboxCheck = check }

func (s sandboxTable) conn(ctx context.Context) *gorm.DB {
	q := s.db.conn(ctx)
	if s.db.sandboxCheck != nil {
		q = q.Set(sandboxCheckKey, s.db.sandboxCheck)
	}
	return q
}

// Create stores a new sandbox (its ID chosen by the caller, so that its
// secret can be sealed to it). A live sandbox of the same name is a conflict.
func (s sandboxTable) Create(ctx context.Context, sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.Sandbox, error) {
	now := Now()
	row := sandboxRow{
		ID: sb.ID, WorkspaceID: sb.WorkspaceID, Name: sb.Name, Description: sb.Description, Provider: sb.Provider,
		URL: sb.URL, Config: string(sb.Config), SecretKeyID: sealed.KeyID, SecretCiphertext: sealed.Ciphertext,
		SecretLast4: sb.Secret.Last4, SecretLength: sb.Secret.Length, HealthStatus: string(auxilia.HealthUnknown),
		HealthHistory: "[]", ManagedBy: sb.ManagedBy,
		Version: 1, CreatedAt: now, UpdatedAt: now,
	}
	if err := s.conn(ctx).Create(&row).Error; err != nil {
		return auxilia.Sandbox{}, s.nameConflict(ctx, err, sb.WorkspaceID, sb.Name)
	}
	return row.domain(), nil
}

// nameConflict turns a duplicate-name error into a conflict naming the
// sandbox that holds the name.
func (s sandboxTable) nameConflict(ctx context.Context, err error, workspaceID, name string) error {
	if !errors.Is(err, gorm.ErrDuplicatedKey) {
		return err
	}
	conflict := auxilia.Errorf(auxilia.CodeConflict, "A sandbox named %q already exists in this workspace.", name)
	// Outside the caller's transaction: on Postgres the failed insert has aborted it.
	var existing sandboxRow
	if s.db.gorm.WithContext(context.WithoutCancel(ctx)).Select("id").
		Where("workspace_id = ? AND name = ? AND deleted_at IS NULL", workspaceID, name).Take(&existing).Error == nil {
		return conflict.With("existing_id", existing.ID)
	}
	return conflict
}

func (s sandboxTable) live(ctx context.Context, workspaceID string) *gorm.DB {
	return s.db.conn(ctx).Where("workspace_id = ? AND deleted_at IS NULL", workspaceID)
}

// Get returns a live sandbox of the workspace.
func (s sandboxTable) Get(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, error) {
	sb, _, err := s.GetSealed(ctx, workspaceID, id)
	return sb, err
}

// GetSealed returns a live sandbox with its sealed secret.
func (s sandboxTable) GetSealed(ctx context.Context, workspaceID, id string) (auxilia.Sandbox, auxilia.SealedSecret, error) {
	row, err := takeRow[sandboxRow](ctx, s.db, "SELECT "+sandboxColumns+" FROM sandboxes "+
		"WHERE workspace_id = ? AND deleted_at IS NULL AND id = ? LIMIT 1", workspaceID, id)
	if err != nil {
		return auxilia.Sandbox{}, auxilia.SealedSecret{}, notFound(err, "sandbox")
	}
	return row.domain(), row.sealed(), nil
}

// List returns a page of the workspace's live sandboxes, only the one called name when it is set.
func (s sandboxTable) List(ctx context.Context, workspaceID, name string, req auxilia.PageRequest) (auxilia.Page[auxilia.Sandbox], error) {
	where, args := "workspace_id = ? AND deleted_at IS NULL", []any{workspaceID}
	if name != "" {
		where, args = where+" AND name = ?", append(args, name)
	}
	where, args = pageSQL(where, args, req)
	rows, err := findRows[sandboxRow](ctx, s.db, "SELECT "+sandboxColumns+" FROM sandboxes WHERE "+where, args...)
	if err != nil {
		return auxilia.Page[auxilia.Sandbox]{}, err
	}
	return toPage(rows, req, func(r sandboxRow) string { return r.ID }, sandboxRow.domain), nil
}

// Update saves sb's spec (and, when sealed is not nil, its new secret: an
// empty one clears it) if the stored version is still sb.Version; a stale
// version is a precondition failure.
func (s sandboxTable) Update(ctx context.Context, sb auxilia.Sandbox, sealed *auxilia.SealedSecret) (auxilia.Sandbox, error) {
	var row sandboxRow
	if err := s.live(ctx, sb.WorkspaceID).Where("id = ?", sb.ID).Take(&row).Error; err != nil {
		return auxilia.Sandbox{}, notFound(err, "sandbox")
	}
	if row.Version != sb.Version {
		return auxilia.Sandbox{}, auxilia.Stale("sandbox", row.Version)
	}
	row.Name, row.Description, row.URL, row.Config = sb.Name, sb.Description, sb.URL, string(sb.Config)
	if sealed != nil {
		row.SecretKeyID, row.SecretCiphertext = sealed.KeyID, sealed.Ciphertext
		row.SecretLast4, row.SecretLength = sb.Secret.Last4, sb.Secret.Length
	}
	row.Version++
	row.UpdatedAt = Now()
	res := s.conn(ctx).Model(&row).Where("version = ? AND deleted_at IS NULL", sb.Version).
		Select("name", "description", "url", "config", "secret_key_id", "secret_ciphertext", "secret_last4",
			"secret_length", "version", "updated_at").Updates(&row)
	if res.Error != nil {
		return auxilia.Sandbox{}, s.nameConflict(ctx, res.Error, sb.WorkspaceID, sb.Name)
	}
	if res.RowsAffected == 0 { // written or deleted since it was read
		current, err := s.Get(ctx, sb.WorkspaceID, sb.ID)
		if err != nil {
			return auxilia.Sandbox{}, err
		}
		return auxilia.Sandbox{}, auxilia.Stale("sandbox", current.Version)
	}
	return row.domain(), nil
}

// Delete removes a live sandbox from view, if it is still at the version
// the caller read; its row and sealed secret stay for the reaper.
func (s sandboxTable) Delete(ctx context.Context, workspaceID, id string, version int) error {
	q := s.live(ctx, workspaceID).Model(&sandboxRow{}).Where("id = ? AND version = ?", id, version)
	res := q.UpdateColumns(map[string]any{"deleted_at": Now(), "version": gorm.Expr("version + 1")})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		current, err := s.Get(ctx, workspaceID, id)
		if err != nil {
			return err
		}
		return auxilia.Stale("sandbox", current.Version)
	}
	return nil
}

// SetHealth records what a probe found; it does not change the version,
// which tracks what admins configure.
func (s sandboxTable) SetHealth(ctx context.Context, id string, h auxilia.Health) error {
	history, err := json.Marshal(h.History)
	if err != nil {
		return err
	}
	return s.db.conn(ctx).Model(&sandboxRow{}).Where("id = ?", id).UpdateColumns(map[string]any{
		"health_status": string(h.Status), "health_checked_at": h.CheckedAt,
		"health_latency_ms": h.LatencyMS, "health_detail": h.Detail, "health_history": string(history),
	}).Error
}

// ResealSecrets calls fn with every stored sandbox secret (deleted sandboxes
// included) and saves the one fn returns when it differs: key rotation.
func (s sandboxTable) ResealSecrets(ctx context.Context, fn func(sb auxilia.Sandbox, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error)) (int, error) {
	var rows []sandboxRow
	if err := s.db.conn(ctx).Select("id", "workspace_id", "secret_key_id", "secret_ciphertext").
		Where("secret_ciphertext <> ''").Order("id").Find(&rows).Error; err != nil {
		return 0, err
	}
	changed := 0
	for _, r := range rows {
		out, err := fn(auxilia.Sandbox{ID: r.ID, WorkspaceID: r.WorkspaceID}, r.sealed())
		if err != nil {
			return changed, err
		}
		if out == r.sealed() {
			continue
		}
		if err := s.db.conn(ctx).Model(&sandboxRow{}).Where("id = ?", r.ID).
			UpdateColumns(map[string]any{"secret_key_id": out.KeyID, "secret_ciphertext": out.Ciphertext}).Error; err != nil {
			return changed, err
		}
		changed++
	}
	return changed, nil
}

func parseHistory(s string) []auxilia.Probe {
	var out []auxilia.Probe
	_ = json.Unmarshal([]byte(s), &out)
	return out
}

// GetSealedAny returns a sandbox by id, deleted or not, with its sealed
// secret: the reaper destroys a deleted sandbox's instances with it.
func (s sandboxTable) GetSealedAny(ctx context.Context, id string) (auxilia.Sandbox, auxilia.SealedSecret, error) {
	var row sandboxRow
	if err := s.db.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return auxilia.Sandbox{}, auxilia.SealedSecret{}, notFound(err, "sandbox")
	}
	return row.domain(), row.sealed(), nil
}

// PurgeDeleted forgets deleted sandboxes (and their sealed secrets) once the
// reaper has destroyed all their instances.
func (s sandboxTable) PurgeDeleted(ctx context.Context) (int64, error) {
	var purged int64
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		done := "deleted_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM kept_files k WHERE k.sandbox_id = sandboxes.id) AND " +
			"NOT EXISTS (SELECT 1 FROM instances i WHERE i.sandbox_id = sandboxes.id AND i.status <> ?)"
		if err := s.db.conn(ctx).Exec("DELETE FROM instances WHERE sandbox_id IN (SELECT id FROM sandboxes WHERE "+done+")",
			auxilia.InstanceDestroyed).Error; err != nil {
			return err
		}
		res := s.db.conn(ctx).Where("deleted_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.sandbox_id = sandboxes.id) " +
			"AND NOT EXISTS (SELECT 1 FROM kept_files k WHERE k.sandbox_id = sandboxes.id)").
			Delete(&sandboxRow{})
		purged = res.RowsAffected
		return res.Error
	})
	return purged, err
}

// Unchecked returns up to limit live sandboxes (of every workspace) whose
// health was last checked before `before`, or never.
func (s sandboxTable) Unchecked(ctx context.Context, before time.Time, limit int) ([]auxilia.Sandbox, error) {
	var rows []sandboxRow
	err := s.db.conn(ctx).Where("deleted_at IS NULL AND (health_checked_at IS NULL OR health_checked_at < ?)", before).
		Order("health_checked_at NULLS FIRST").Limit(limit).Find(&rows).Error
	out := make([]auxilia.Sandbox, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}
