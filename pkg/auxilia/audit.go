package auxilia

import (
	"context"
	"time"
)

// AuditEntry records a change, or an attempt refused.
type AuditEntry struct {
	ID           string
	WorkspaceID  string // "" for a request whose token is unknown
	At           time.Time
	TokenID      string // "" when no token (or an unknown one) was sent
	TokenName    string
	UserID       string // the person signed in, "" for a token
	UserName     string
	Action       string // "sandbox.create", "binding.put", …
	ResourceType string // one of AuditResourceTypes
	ResourceID   string
	Outcome      AuditOutcome
	Detail       string // never a secret value
}

// AuditResourceTypes are the kinds of resource an audit entry is about.
var AuditResourceTypes = []string{"sandbox", "agent", "binding", "token", "thread", "run", "key", "quota", "user"}

// AuditActions are the actions an audit entry can record.
var AuditActions = []string{
	"agent.create", "agent.update", "agent.delete", "alert.failed", "binding.put", "binding.delete", "key.rotate", "mcp.call",
	"quota.alert", "quota.pause", "quota.set", "run.start", "run.complete", "sandbox.create", "sandbox.update", "sandbox.delete", "sandbox.probe", "sandbox.network",
	"session.signin", "session.signout",
	"terminal.ticket", "terminal.opened", "terminal.reattached", "terminal.closed",
	"thread.delete", "token.create", "token.revoke", "tool.approve",
}

// AuditOutcomes are the ways an attempt can end, as AuditOutcome values.
var AuditOutcomes = []string{
	string(OutcomeSuccess), string(OutcomeDenied), string(OutcomeInvalid), string(OutcomeConflict), string(OutcomeError),
}

// AuditOutcome is how the attempt ended.
type AuditOutcome string

// Audit outcomes.
const (
	OutcomeSuccess  AuditOutcome = "success"
	OutcomeDenied   AuditOutcome = "denied"   // 401, 403
	OutcomeInvalid  AuditOutcome = "invalid"  // 400, 413, 415, 422
	OutcomeConflict AuditOutcome = "conflict" // 409, 412
	OutcomeError    AuditOutcome = "error"
)

// AuditFilter narrows an audit listing; empty fields match everything.
type AuditFilter struct {
	ResourceType string
	ResourceID   string
	TokenID      string
	Action       string
	Outcome      AuditOutcome
	Since        time.Time // entries at or after it; zero: no bound
	Until        time.Time // entries before it; zero: no bound
}

// Auditor records audit entries (in the transaction ctx carries, if any).
type Auditor interface {
	Append(ctx context.Context, e AuditEntry) error
}

// CommandLine is the actor name of changes made with the auxilia command.
const CommandLine = "auxilia command line"

// Audit records a successful change in a workspace, made by the actor in ctx
// (or on the command line when there is none).
func Audit(ctx context.Context, a Auditor, workspaceID, action, resourceType, resourceID, detail string) error {
	return a.Append(ctx, Audited(ctx, workspaceID, action, resourceType, resourceID, detail))
}

// Audited is the entry Audit records.
func Audited(ctx context.Context, workspaceID, action, resourceType, resourceID, detail string) AuditEntry {
	e := AuditEntry{WorkspaceID: workspaceID, TokenName: CommandLine, Action: action, ResourceType: resourceType,
		ResourceID: resourceID, Outcome: OutcomeSuccess, Detail: detail}
	if actor, ok := ActorFrom(ctx); ok {
		e.TokenID, e.TokenName, e.UserID, e.UserName = actor.TokenID, actor.TokenName, actor.UserID, actor.UserName
	}
	return e
}
