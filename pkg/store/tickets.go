package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

type ticketRow struct {
	Hash      string `gorm:"primaryKey"`
	TokenID   *string
	SessionID *string
	RunID     string
	Approved  bool
	ExpiresAt time.Time
}

func (ticketRow) TableName() string { return "terminal_tickets" }

// AddTicket stores a terminal ticket by the hash of its value, and forgets
// the tickets that expired unused.
func (s tokenTable) AddTicket(ctx context.Context, t auxilia.TerminalTicket, hash string) error {
	if err := s.db.conn(ctx).Where("expires_at < ?", Now()).Delete(&ticketRow{}).Error; err != nil {
		return err
	}
	return s.db.conn(ctx).Create(&ticketRow{Hash: hash, TokenID: ptr(t.TokenID), SessionID: ptr(t.SessionID),
		RunID: t.RunID, Approved: t.Approved, ExpiresAt: t.ExpiresAt.UTC()}).Error
}

// ClaimTicket takes the ticket whose value hashes to hash, if it has not
// expired by now: one statement deletes it, so that of two replicas taking
// it at once only one gets it. NotFound otherwise.
func (s tokenTable) ClaimTicket(ctx context.Context, hash string, now time.Time) (auxilia.TerminalTicket, error) {
	var rows []ticketRow
	err := s.db.conn(ctx).Raw(`DELETE FROM terminal_tickets WHERE hash = ? AND expires_at > ?
		RETURNING hash, token_id, session_id, run_id, approved, expires_at`, hash, now.UTC()).Scan(&rows).Error
	if err != nil {
		return auxilia.TerminalTicket{}, err
	}
	if len(rows) == 0 {
		return auxilia.TerminalTicket{}, auxilia.NotFound("ticket")
	}
	r := rows[0]
	return auxilia.TerminalTicket{TokenID: deref(r.TokenID), SessionID: deref(r.SessionID), RunID: r.RunID,
		Approved: r.Approved, ExpiresAt: r.ExpiresAt}, nil
}
