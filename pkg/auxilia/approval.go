package auxilia

import "time"

// ApprovalStatus is where a person's approval of a tool call stands.
type ApprovalStatus string

// Approval statuses: pending until a person decides; a decided approval is
// used by the next matching call, once.
const (
	ApprovalPending  ApprovalStatus = "pending"
	ApprovalApproved ApprovalStatus = "approved"
	ApprovalDenied   ApprovalStatus = "denied"
)

// Approval is a tool call that needs a person's approval, asked for when the
// call came without one, and what a person decided.
type Approval struct {
	ID          string
	WorkspaceID string
	RunID       string
	ThreadID    string
	Tool        string
	// Arguments are the call's arguments as the caller gave them, each text
	// cut to a bounded length (ArgumentsCut says one was).
	Arguments    map[string]any
	ArgumentsCut bool
	// Fingerprint identifies the call's exact arguments: a repeat matches it.
	Fingerprint string
	Status      ApprovalStatus
	// RequestedBy names the token that made the call, and RequestedByID is
	// its identity (a token's id; "" for the command line): who may decide
	// is judged by identity, as names are not unique. Via is how it came
	// (the REST API or MCP).
	RequestedBy   string
	RequestedByID string
	Via           string
	RequestedAt   time.Time
	DecidedBy     string
	DecidedAt     *time.Time
	// UsedAt is when the repeated call used the decision.
	UsedAt *time.Time
}
