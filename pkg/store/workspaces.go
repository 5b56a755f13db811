package store

import (
	"context"
	"errors"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"gorm.io/gorm"
)

type workspaceRow struct {
	ID        string `gorm:"primaryKey"`
	Name      string
	CreatedAt time.Time
}

func (workspaceRow) TableName() string { return "workspaces" }

func (r workspaceRow) domain() auxilia.Workspace {
	return auxilia.Workspace{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt}
}

// workspaceTable stores the tenants.
type workspaceTable struct{ db *DB }

func (db *DB) workspaces() workspaceTable { return workspaceTable{db} }

// ByName returns the workspace called name.
func (s workspaceTable) ByName(ctx context.Context, name string) (auxilia.Workspace, error) {
	var row workspaceRow
	err := s.db.conn(ctx).Where("name = ?", name).Take(&row).Error
	return row.domain(), notFound(err, "workspace")
}

// Ensure returns the workspace called name, creating it when missing.
func (s workspaceTable) Ensure(ctx context.Context, name string) (auxilia.Workspace, error) {
	ws, err := s.ByName(ctx, name)
	if !auxilia.IsCode(err, auxilia.CodeNotFound) {
		return ws, err
	}
	row := workspaceRow{ID: auxilia.NewID(), Name: name, CreatedAt: Now()}
	err = s.db.conn(ctx).Create(&row).Error
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return s.ByName(ctx, name) // created meanwhile by another process
	}
	return row.domain(), err
}

// All returns every workspace, by name.
func (s workspaceTable) All(ctx context.Context) ([]auxilia.Workspace, error) {
	var rows []workspaceRow
	if err := s.db.conn(ctx).Order("name").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]auxilia.Workspace, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.domain())
	}
	return out, nil
}
