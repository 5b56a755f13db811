package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

type keptRow struct {
	ID              string `gorm:"primaryKey"`
	WorkspaceID     string
	SandboxID       string
	ThreadID        *string
	ProviderRef     string
	StateKeyID      string
	StateCiphertext string
	KeptAt          time.Time
	ForgetAfter     time.Time
	Bytes           int64
}

func (keptRow) TableName() string { return "kept_files" }

func (r keptRow) domain() *auxilia.KeptFiles {
	k := &auxilia.KeptFiles{ID: r.ID, WorkspaceID: r.WorkspaceID, SandboxID: r.SandboxID, ProviderRef: r.ProviderRef,
		State: auxilia.SealedSecret{KeyID: r.StateKeyID, Ciphertext: r.StateCiphertext}, At: r.KeptAt, ForgetAfter: r.ForgetAfter, Bytes: r.Bytes}
	if r.ThreadID != nil {
		k.ThreadID = *r.ThreadID
	}
	return k
}

// keptTable stores threads' kept files.
type keptTable struct{ db *DB }

func (db *DB) kept() keptTable { return keptTable{db} }

// Add records files kept for their thread, which from now on uses them
// rather than what it kept before: those are released for the reaper.
func (s keptTable) Add(ctx context.Context, k auxilia.KeptFiles) (auxilia.KeptFiles, error) {
	if k.ID == "" {
		k.ID = auxilia.NewID()
	}
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.release(ctx, "thread_id = ?", k.ThreadID); err != nil {
			return err
		}
		thread := k.ThreadID
		return s.db.conn(ctx).Create(&keptRow{ID: k.ID, WorkspaceID: k.WorkspaceID, SandboxID: k.SandboxID, ThreadID: &thread,
			ProviderRef: k.ProviderRef, StateKeyID: k.State.KeyID, StateCiphertext: k.State.Ciphertext,
			KeptAt: k.At, ForgetAfter: k.ForgetAfter, Bytes: k.Bytes}).Error
	})
	return k, err
}

func (s keptTable) release(ctx context.Context, where string, args ...any) error {
	return s.db.conn(ctx).Model(&keptRow{}).Where(where, args...).Where("thread_id IS NOT NULL").
		UpdateColumn("thread_id", nil).Error
}

// Forgettable returns up to limit kept files the reaper is to delete at
// their provider: past their time, released, or of a thread that is gone.
func (s keptTable) Forgettable(ctx context.Context, now time.Time, limit int) ([]auxilia.KeptFiles, error) {
	var rows []keptRow
	err := s.db.conn(ctx).Where("forget_after < ? OR thread_id IS NULL OR NOT EXISTS (SELECT 1 FROM threads t WHERE t.id = kept_files.thread_id)", now).
		Order("kept_at").Limit(limit).Find(&rows).Error
	out := make([]auxilia.KeptFiles, len(rows))
	for i, r := range rows {
		out[i] = *r.domain()
	}
	return out, err
}

// Delete forgets kept files the provider no longer holds; their usage ends
// in the same transaction.
func (s keptTable) Delete(ctx context.Context, id string) error {
	return s.db.InTx(ctx, func(ctx context.Context) error {
		if err := s.db.conn(ctx).Exec("UPDATE usage_kept SET ended_at = ? WHERE kept_id = ? AND ended_at IS NULL", Now(), id).Error; err != nil {
			return err
		}
		return s.db.conn(ctx).Where("id = ?", id).Delete(&keptRow{}).Error
	})
}

// newest returns each thread's newest kept files, by thread id.
func (s keptTable) newest(ctx context.Context, threadIDs []string) (map[string]*auxilia.KeptFiles, error) {
	out := map[string]*auxilia.KeptFiles{}
	if len(threadIDs) == 0 {
		return out, nil
	}
	var rows []keptRow
	if err := s.db.conn(ctx).Where("thread_id IN ?", threadIDs).Order("kept_at").Find(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[*r.ThreadID] = r.domain() // later rows win
	}
	return out, nil
}
