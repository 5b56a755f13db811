package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantThreads are the conversation threads of the handle's workspace.
type TenantThreads struct{ t Tenant }

// Threads returns the workspace's threads.
func (t Tenant) Threads() TenantThreads { return TenantThreads{t} }

// Lock returns the agent's thread keyed key, creating it when missing, and
// locks it for the rest of ctx's transaction.
func (s TenantThreads) Lock(ctx context.Context, agentID, key string) (auxilia.Thread, error) {
	return s.t.db.threads().Lock(ctx, s.t.ws, agentID, key)
}

// LockExisting is Lock for a thread that must exist already.
func (s TenantThreads) LockExisting(ctx context.Context, agentID, key string) (auxilia.Thread, error) {
	return s.t.db.threads().LockExisting(ctx, s.t.ws, agentID, key)
}

// Get returns the agent's thread keyed key.
func (s TenantThreads) Get(ctx context.Context, agentID, key string) (auxilia.Thread, error) {
	return s.t.db.threads().Get(ctx, s.t.ws, agentID, key)
}

// List returns a page of the agent's threads.
func (s TenantThreads) List(ctx context.Context, agentID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Thread], error) {
	return s.t.db.threads().List(ctx, s.t.ws, agentID, req)
}

// StartView reads what a run start looks at first (store.threadTable.StartView).
func (s TenantThreads) StartView(ctx context.Context, agentID, key string, claim *auxilia.PoolClaim) (auxilia.StartView, error) {
	return s.t.db.threads().StartView(ctx, s.t.ws, agentID, key, claim)
}

// Delete removes the thread id.
func (s TenantThreads) Delete(ctx context.Context, id string) error {
	return s.t.db.threads().Delete(ctx, id)
}

// TenantRuns are the runs of the handle's workspace.
type TenantRuns struct{ t Tenant }

// Runs returns the workspace's runs.
func (t Tenant) Runs() TenantRuns { return TenantRuns{t} }

// Start records a run's start on its thread in the workspace (r's
// workspace is ignored), and returns it with the thread's instance id
// (store.runTable.Start).
func (s TenantRuns) Start(ctx context.Context, r auxilia.Run) (auxilia.Run, string, error) {
	r.WorkspaceID = s.t.ws
	return s.t.db.runs().Start(ctx, r)
}

// StartOnInstance is Start and its audit entry in one round trip, when it
// can (runTable.StartOnInstance).
func (s TenantRuns) StartOnInstance(ctx context.Context, r auxilia.Run, threadID string, e auxilia.AuditEntry) (auxilia.Run, bool, error) {
	r.WorkspaceID, e.WorkspaceID = s.t.ws, s.t.ws
	return s.t.db.runs().StartOnInstance(ctx, r, threadID, e)
}

// CallView reads what a tool call of the run looks at first (store.runTable.CallView).
func (s TenantRuns) CallView(ctx context.Context, runID string) (auxilia.CallView, error) {
	return s.t.db.runs().CallView(ctx, s.t.ws, runID)
}

// Get returns a run of the workspace.
func (s TenantRuns) Get(ctx context.Context, id string) (auxilia.Run, error) {
	return s.t.db.runs().Get(ctx, s.t.ws, id)
}

// List returns a page of the runs of the thread threadID.
func (s TenantRuns) List(ctx context.Context, threadID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Run], error) {
	return s.t.db.runs().List(ctx, threadID, req)
}

// Touch records activity on the run id at `at`, at most once per every.
func (s TenantRuns) Touch(ctx context.Context, id string, at time.Time, every time.Duration) error {
	return s.t.db.runs().Touch(ctx, id, at, every)
}

// End ends the running run id with status; false if it had ended already.
func (s TenantRuns) End(ctx context.Context, id string, status auxilia.RunStatus) (bool, error) {
	return s.t.db.runs().End(ctx, id, status)
}

// TenantApprovals are the approvals of the handle's workspace.
type TenantApprovals struct{ t Tenant }

// Approvals returns the workspace's approvals.
func (t Tenant) Approvals() TenantApprovals { return TenantApprovals{t} }

// Request records a pending approval in the workspace (a's workspace is ignored).
func (s TenantApprovals) Request(ctx context.Context, a auxilia.Approval) (auxilia.Approval, error) {
	a.WorkspaceID = s.t.ws
	return s.t.db.approvals().Request(ctx, a)
}

// Use takes a granted approval of the thread for the call, if there is one.
func (s TenantApprovals) Use(ctx context.Context, threadID, tool, fingerprint string) (auxilia.Approval, bool, error) {
	return s.t.db.approvals().Use(ctx, threadID, tool, fingerprint)
}

// Settle records that the person asked directly settled the call.
func (s TenantApprovals) Settle(ctx context.Context, threadID, tool, fingerprint, by string) error {
	return s.t.db.approvals().Settle(ctx, threadID, tool, fingerprint, by)
}

// Decide grants or denies a pending approval of the workspace's thread.
func (s TenantApprovals) Decide(ctx context.Context, threadID, id string, status auxilia.ApprovalStatus, by string) (auxilia.Approval, error) {
	return s.t.db.approvals().Decide(ctx, s.t.ws, threadID, id, status, by)
}

// Get returns an approval of the workspace's thread.
func (s TenantApprovals) Get(ctx context.Context, threadID, id string) (auxilia.Approval, error) {
	return s.t.db.approvals().Get(ctx, s.t.ws, threadID, id)
}

// List returns up to limit approvals of the workspace's thread.
func (s TenantApprovals) List(ctx context.Context, threadID string, limit int) ([]auxilia.Approval, error) {
	return s.t.db.approvals().List(ctx, s.t.ws, threadID, limit)
}
