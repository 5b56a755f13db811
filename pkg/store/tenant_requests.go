package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantAudit is the audit log of the handle's workspace.
type TenantAudit struct{ t Tenant }

// Audit returns the workspace's audit log.
func (t Tenant) Audit() TenantAudit { return TenantAudit{t} }

// Append records an entry of the workspace (e's workspace is ignored).
func (s TenantAudit) Append(ctx context.Context, e auxilia.AuditEntry) error {
	e.WorkspaceID = s.t.ws
	return s.t.db.audit().Append(ctx, e)
}

// List returns a page of the workspace's entries, newest first.
func (s TenantAudit) List(ctx context.Context, f auxilia.AuditFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.AuditEntry], error) {
	return s.t.db.audit().List(ctx, s.t.ws, f, req)
}

// SystemAudit is the audit trail every service appends to: each entry
// names its own workspace (auxilia.Audit fills it in).
type SystemAudit struct{ s System }

// Audit returns the audit trail.
func (s System) Audit() SystemAudit { return SystemAudit{s} }

// Append records an entry, in the transaction ctx carries when there is one.
func (s SystemAudit) Append(ctx context.Context, e auxilia.AuditEntry) error {
	return s.s.db.audit().Append(ctx, e)
}

// SystemRequests keep what the API remembers of each token's requests,
// before a handler knows the workspace: Idempotency-Key answers and rate
// windows, both keyed by the token.
type SystemRequests struct{ s System }

// Requests returns the per-token request records.
func (s System) Requests() SystemRequests { return SystemRequests{s} }

// Claim records that tokenID is making the request key with body fingerprint
// hash; it returns nil when the claim is new, otherwise the earlier request.
func (s SystemRequests) Claim(ctx context.Context, tokenID, key, hash string, expired, stale time.Time) (*auxilia.IdempotentRequest, error) {
	return s.s.db.idempotency().Claim(ctx, tokenID, key, hash, expired, stale)
}

// Complete stores the answer to a claimed request.
func (s SystemRequests) Complete(ctx context.Context, tokenID, key string, status int, headers map[string]string, body []byte) error {
	return s.s.db.idempotency().Complete(ctx, tokenID, key, status, headers, body)
}

// Release forgets a claim whose request did not finish.
func (s SystemRequests) Release(ctx context.Context, tokenID, key string) error {
	return s.s.db.idempotency().Release(ctx, tokenID, key)
}

// Hit counts one request of the token in the window starting at start and
// returns the window's count so far.
func (s SystemRequests) Hit(ctx context.Context, tokenID string, start time.Time) (int, error) {
	return s.s.db.rateWindows().Hit(ctx, tokenID, start)
}
