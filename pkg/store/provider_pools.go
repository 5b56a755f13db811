package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm/clause"
)

type providerPoolRow struct {
	SandboxID  string `gorm:"primaryKey"`
	Version    int
	Size       int
	Ready      int
	Creating   int
	ObservedAt time.Time
}

func (providerPoolRow) TableName() string { return "provider_pools" }

func (r providerPoolRow) domain() auxilia.ProviderPool {
	return auxilia.ProviderPool{SandboxID: r.SandboxID, Version: r.Version, Size: r.Size, Ready: r.Ready,
		Creating: r.Creating, ObservedAt: r.ObservedAt}
}

// ProviderPool returns how the sandbox's provider-kept pool last stood;
// false when no pool of the sandbox is kept at its provider.
func (s poolTable) ProviderPool(ctx context.Context, sandboxID string) (auxilia.ProviderPool, bool, error) {
	var rows []providerPoolRow
	err := s.db.conn(ctx).Where("sandbox_id = ?", sandboxID).Limit(1).Find(&rows).Error
	if err != nil || len(rows) == 0 {
		return auxilia.ProviderPool{}, false, err
	}
	return rows[0].domain(), true, nil
}

// SetProviderPool records how a provider-kept pool stands.
func (s poolTable) SetProviderPool(ctx context.Context, p auxilia.ProviderPool) error {
	row := providerPoolRow{SandboxID: p.SandboxID, Version: p.Version, Size: p.Size, Ready: p.Ready,
		Creating: p.Creating, ObservedAt: p.ObservedAt.UTC().Truncate(time.Microsecond)}
	return s.db.conn(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "sandbox_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"version", "size", "ready", "creating", "observed_at"}),
	}).Create(&row).Error
}

// ForgetProviderPool records that the provider removed the sandbox's pool.
func (s poolTable) ForgetProviderPool(ctx context.Context, sandboxID string) error {
	return s.db.conn(ctx).Where("sandbox_id = ?", sandboxID).Delete(&providerPoolRow{}).Error
}

// DeletedWithProviderPools returns up to limit deleted sandboxes whose
// provider still keeps a pool of theirs, for the pool job to remove.
func (s poolTable) DeletedWithProviderPools(ctx context.Context, limit int) ([]auxilia.Sandbox, error) {
	var rows []sandboxRow
	err := s.db.conn(ctx).Where("deleted_at IS NOT NULL AND id IN (SELECT sandbox_id FROM provider_pools)").
		Order("id").Limit(limit).Find(&rows).Error
	out := make([]auxilia.Sandbox, len(rows))
	for i, r := range rows {
		out[i] = r.domain()
	}
	return out, err
}
