package auxilia

import "time"

// TerminalTicket lets whoever holds its value open one run's terminal once,
// as the token that asked for it, before it expires.
type TerminalTicket struct {
	TokenID string
	// SessionID is the person's console session that asked for it, for a
	// ticket a person asked for ("" for a token's).
	SessionID string
	RunID     string
	// Approved says a person approved the terminal when it was asked for.
	Approved  bool
	ExpiresAt time.Time
}
