package token

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TicketLife is how long a terminal ticket may wait to be used.
const TicketLife = 30 * time.Second

// ticketPrefix starts every ticket value.
const ticketPrefix = "auxt_"

// IssueTicket makes a single-use ticket that opens the run's terminal as a
// (a browser cannot send a token on a WebSocket). approved records that a
// person approved the terminal. Only the value's hash is stored.
func (s *Service) IssueTicket(ctx context.Context, a auxilia.Actor, runID string, approved bool) (string, time.Time, error) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	value := ticketPrefix + base64.RawURLEncoding.EncodeToString(b)
	expires := time.Now().UTC().Add(TicketLife).Truncate(time.Millisecond)
	t := auxilia.TerminalTicket{TokenID: a.TokenID, SessionID: a.SessionID, RunID: runID, Approved: approved, ExpiresAt: expires}
	if err := s.tokens(a.Workspace.ID).AddTicket(ctx, t, Hash(value)); err != nil {
		return "", time.Time{}, err
	}
	return value, expires, nil
}

// RedeemTicket takes a ticket, once: it returns the ticket and the actor it
// was issued to, whose token must still be live (for a ticket a person's
// session asked for, an actor naming only the session, which the caller
// must authenticate). A used, expired or unknown
// ticket is refused as unauthorized.
func (s *Service) RedeemTicket(ctx context.Context, value string) (auxilia.Actor, auxilia.TerminalTicket, error) {
	refused := auxilia.Errorf(auxilia.CodeUnauthorized, "The ticket is unknown, used or expired: ask for a new one.")
	t, err := s.lookup.ClaimTicket(ctx, Hash(value), time.Now())
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return auxilia.Actor{}, t, refused
	}
	if err != nil {
		return auxilia.Actor{}, t, err
	}
	if t.SessionID != "" {
		// A person's: the caller checks that the request carries that session.
		return auxilia.Actor{SessionID: t.SessionID}, t, nil
	}
	tok, ws, err := s.lookup.ByID(ctx, t.TokenID)
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		return auxilia.Actor{}, t, refused
	}
	if err != nil {
		return auxilia.Actor{}, t, err
	}
	a := auxilia.Actor{TokenID: tok.ID, TokenName: tok.Name, Role: tok.Role, Workspace: ws}
	if tok.RevokedAt != nil {
		return a, t, auxilia.Errorf(auxilia.CodeUnauthorized, "The token is unknown or revoked.")
	}
	return a, t, nil
}
