package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

type idempotencyRow struct {
	TokenID     string `gorm:"primaryKey"`
	IdemKey     string `gorm:"primaryKey"`
	RequestHash string
	Status      int
	Headers     string
	Body        string
	CreatedAt   time.Time
}

func (idempotencyRow) TableName() string { return "idempotency_keys" }

func (r idempotencyRow) domain() auxilia.IdempotentRequest {
	out := auxilia.IdempotentRequest{RequestHash: r.RequestHash, Done: r.Status != 0, Status: r.Status,
		Body: []byte(r.Body), CreatedAt: r.CreatedAt}
	_ = json.Unmarshal([]byte(r.Headers), &out.Headers)
	return out
}

// idempotencyTable keeps the answers to requests made with an Idempotency-Key.
type idempotencyTable struct{ db *DB }

func (db *DB) idempotency() idempotencyTable { return idempotencyTable{db} }

// Claim records that tokenID is making the request key with body fingerprint
// hash. It returns nil when the claim is new; otherwise the earlier request
// under that key. Earlier requests created before `expired` are forgotten,
// and so are unfinished ones created before `stale` (their process died).
func (s idempotencyTable) Claim(ctx context.Context, tokenID, key, hash string, expired, stale time.Time) (*auxilia.IdempotentRequest, error) {
	for attempt := 0; ; attempt++ {
		row := idempotencyRow{TokenID: tokenID, IdemKey: key, RequestHash: hash, Headers: "{}", CreatedAt: Now()}
		err := s.db.conn(ctx).Create(&row).Error
		if err == nil {
			return nil, nil
		}
		if !errors.Is(err, gorm.ErrDuplicatedKey) {
			return nil, err
		}
		var prev idempotencyRow
		err = s.db.conn(ctx).Where("token_id = ? AND idem_key = ?", tokenID, key).Take(&prev).Error
		if errors.Is(err, gorm.ErrRecordNotFound) && attempt == 0 {
			continue // released meanwhile
		}
		if err != nil {
			return nil, err
		}
		forgotten := prev.CreatedAt.Before(expired) || (prev.Status == 0 && prev.CreatedAt.Before(stale))
		if !forgotten || attempt > 0 {
			out := prev.domain()
			return &out, nil
		}
		if err := s.db.conn(ctx).Where("token_id = ? AND idem_key = ? AND created_at = ?", tokenID, key, prev.CreatedAt).
			Delete(&idempotencyRow{}).Error; err != nil {
			return nil, err
		}
	}
}

// Complete stores the answer to the claimed request.
func (s idempotencyTable) Complete(ctx context.Context, tokenID, key string, status int, headers map[string]string, body []byte) error {
	h, err := json.Marshal(headers)
	if err != nil {
		return err
	}
	return s.db.conn(ctx).Model(&idempotencyRow{}).Where("token_id = ? AND idem_key = ?", tokenID, key).
		Updates(map[string]any{"status": status, "headers": string(h), "body": string(body)}).Error
}

// Release forgets the claimed request, so that a retry runs it again.
func (s idempotencyTable) Release(ctx context.Context, tokenID, key string) error {
	return s.db.conn(ctx).Where("token_id = ? AND idem_key = ?", tokenID, key).Delete(&idempotencyRow{}).Error
}

// Purge forgets every request created before `before`.
func (s idempotencyTable) Purge(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.conn(ctx).Where("created_at < ?", before).Delete(&idempotencyRow{})
	return res.RowsAffected, res.Error
}
