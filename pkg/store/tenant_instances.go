package store

import (
	"context"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantInstances are the instances the workspace's threads work in,
// reached by the ids of rows found in the workspace.
type TenantInstances struct{ t Tenant }

// Instances returns the workspace's instances.
func (t Tenant) Instances() TenantInstances { return TenantInstances{t} }

// Claim makes the thread's new instance on the sandbox, leased until lease.
func (s TenantInstances) Claim(ctx context.Context, th auxilia.Thread, sandboxID, runID string, lease time.Time) (auxilia.Instance, error) {
	th.WorkspaceID = s.t.ws
	return s.t.db.instances().Claim(ctx, th, sandboxID, runID, lease)
}

// Get returns the instance id.
func (s TenantInstances) Get(ctx context.Context, id string) (auxilia.Instance, error) {
	return s.t.db.instances().Get(ctx, id)
}

// MarkLive records that the instance id is made.
func (s TenantInstances) MarkLive(ctx context.Context, id, providerRef, workDir string, state auxilia.SealedSecret) (bool, error) {
	return s.t.db.instances().MarkLive(ctx, id, providerRef, workDir, state)
}

// SetState stores the instance's sealed provider state.
func (s TenantInstances) SetState(ctx context.Context, id string, state auxilia.SealedSecret) error {
	return s.t.db.instances().SetState(ctx, id, state)
}

// MarkPaused records that the instance was paused at `at`.
func (s TenantInstances) MarkPaused(ctx context.Context, id string, quietSince, at time.Time) (bool, error) {
	return s.t.db.instances().MarkPaused(ctx, id, quietSince, at)
}

// MarkResumed records that the instance runs again.
func (s TenantInstances) MarkResumed(ctx context.Context, id string) error {
	return s.t.db.instances().MarkResumed(ctx, id)
}

// SetProviderRef records the provider's id of the instance.
func (s TenantInstances) SetProviderRef(ctx context.Context, id, providerRef string) error {
	return s.t.db.instances().SetProviderRef(ctx, id, providerRef)
}

// Release hands the instance to the reaper.
func (s TenantInstances) Release(ctx context.Context, id string) error {
	return s.t.db.instances().Release(ctx, id)
}

// MarkDestroyed records that the instance is gone at the provider.
func (s TenantInstances) MarkDestroyed(ctx context.Context, id string) error {
	return s.t.db.instances().MarkDestroyed(ctx, id)
}

// ThreadInstances returns the live instances threads work in on the sandbox.
func (s TenantInstances) ThreadInstances(ctx context.Context, sandboxID string) ([]auxilia.Instance, error) {
	return s.t.db.instances().ThreadInstances(ctx, s.t.ws, sandboxID)
}

// EndRunsForSandbox ends the open runs on the sandbox, whose instances it
// releases, with notice saying why.
func (s TenantInstances) EndRunsForSandbox(ctx context.Context, sandboxID, notice string) (int64, error) {
	return s.t.db.runs().EndForSandbox(ctx, s.t.ws, sandboxID, notice)
}

// EndRunsForAgent ends the agent's open runs, with notice saying why.
func (s TenantInstances) EndRunsForAgent(ctx context.Context, agentID, notice string) (int64, error) {
	return s.t.db.runs().EndForAgent(ctx, s.t.ws, agentID, notice)
}

// ReleaseForSandbox releases every instance the sandbox made.
func (s TenantInstances) ReleaseForSandbox(ctx context.Context, sandboxID string) (int64, error) {
	return s.t.db.instances().ReleaseForSandbox(ctx, sandboxID)
}

// ReleaseForAgent releases the instances of the agent's threads.
func (s TenantInstances) ReleaseForAgent(ctx context.Context, agentID string) (int64, error) {
	return s.t.db.instances().ReleaseForAgent(ctx, agentID)
}

// TenantKept are what the workspace's threads kept of their files.
type TenantKept struct{ t Tenant }

// Kept returns the workspace's kept files.
func (t Tenant) Kept() TenantKept { return TenantKept{t} }

// Add records kept files of the workspace (k's workspace is ignored).
func (s TenantKept) Add(ctx context.Context, k auxilia.KeptFiles) (auxilia.KeptFiles, error) {
	k.WorkspaceID = s.t.ws
	return s.t.db.kept().Add(ctx, k)
}

// Delete forgets the kept files id.
func (s TenantKept) Delete(ctx context.Context, id string) error {
	return s.t.db.kept().Delete(ctx, id)
}

// SystemRuns are what the run service's background jobs (reaper, idle,
// keep) find across workspaces; they act on each row through its
// workspace's Tenant.
type SystemRuns struct{ s System }

// Runs returns the run jobs' queries.
func (s System) Runs() SystemRuns { return SystemRuns{s} }

// IdlePage returns up to limit threads after the id after whose last run
// is older than before.
func (s SystemRuns) IdlePage(ctx context.Context, after string, before time.Time, limit int) ([]auxilia.Thread, error) {
	return s.s.db.threads().IdlePage(ctx, after, before, limit)
}

// IdleInWorkspace returns up to limit of the workspace's threads whose live
// instance saw no activity since before, the longest idle first.
func (s SystemRuns) IdleInWorkspace(ctx context.Context, workspaceID string, before time.Time, limit int) ([]auxilia.Thread, error) {
	return s.s.db.threads().IdleInWorkspace(ctx, workspaceID, before, limit)
}

// Idle returns up to limit running runs with no activity since before.
func (s SystemRuns) Idle(ctx context.Context, before time.Time, limit int) ([]auxilia.Run, error) {
	return s.s.db.runs().Idle(ctx, before, limit)
}

// ExpireLeases releases the instances whose creation lease ran out by now.
func (s SystemRuns) ExpireLeases(ctx context.Context, now time.Time) (int64, error) {
	return s.s.db.instances().ExpireLeases(ctx, now)
}

// Reapable returns up to limit released instances to destroy.
func (s SystemRuns) Reapable(ctx context.Context, limit int) ([]auxilia.Instance, error) {
	return s.s.db.instances().Reapable(ctx, limit)
}

// PurgeDestroyed forgets instances destroyed before before.
func (s SystemRuns) PurgeDestroyed(ctx context.Context, before time.Time) (int64, error) {
	return s.s.db.instances().PurgeDestroyed(ctx, before)
}

// Forgettable returns up to limit kept files whose time is over by now.
func (s SystemRuns) Forgettable(ctx context.Context, now time.Time, limit int) ([]auxilia.KeptFiles, error) {
	return s.s.db.kept().Forgettable(ctx, now, limit)
}

// ResealStates calls fn with every stored instance state and saves what it
// returns when that differs: key rotation.
func (s SystemRuns) ResealStates(ctx context.Context, fn func(id string, sealed auxilia.SealedSecret) (auxilia.SealedSecret, error)) (int, error) {
	return s.s.db.instances().ResealStates(ctx, fn)
}

// TenantPools are the warm pools of the workspace's sandboxes: a thread's
// run claims one of their instances, and a sandbox's view counts them.
type TenantPools struct{ t Tenant }

// Pools returns the workspace's warm pools.
func (t Tenant) Pools() TenantPools { return TenantPools{t} }

// Claim gives the thread a ready pool instance of the sandbox, if any.
func (s TenantPools) Claim(ctx context.Context, th auxilia.Thread, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error) {
	return s.t.db.pools().Claim(ctx, th, sb, freshAfter)
}

// ClaimForNewThread makes the agent's thread keyed key with a ready pool
// instance of the sandbox as its own, if the thread is new and one is ready.
func (s TenantPools) ClaimForNewThread(ctx context.Context, agentID, key string, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error) {
	if sb.WorkspaceID != s.t.ws {
		return auxilia.Instance{}, false, nil
	}
	return s.t.db.pools().ClaimForNewThread(ctx, s.t.ws, agentID, key, sb, freshAfter)
}

// Count returns how many of the sandbox's pool instances are ready and being made.
func (s TenantPools) Count(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (ready, creating int, err error) {
	return s.t.db.pools().Count(ctx, sb, freshAfter)
}

// Paused returns how many of the sandbox's ready pool instances are paused.
func (s TenantPools) Paused(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (int, error) {
	return s.t.db.pools().Paused(ctx, sb, freshAfter)
}

// Failures returns the pool's run of failed creates.
func (s TenantPools) Failures(ctx context.Context, sandboxID string) (auxilia.PoolFailures, error) {
	return s.t.db.pools().Failures(ctx, sandboxID)
}

// SystemPools are the warm pools as the pool job keeps them: instances made
// ahead of any thread, in every workspace.
type SystemPools struct{ s System }

// Pools returns the warm pools.
func (s System) Pools() SystemPools { return SystemPools{s} }

// Add records a new pool instance of the sandbox, leased until lease.
func (s SystemPools) Add(ctx context.Context, sb auxilia.Sandbox, lease time.Time) (auxilia.Instance, error) {
	return s.s.db.pools().Add(ctx, sb, lease)
}

// Count returns how many of the sandbox's pool instances are ready and being made.
func (s SystemPools) Count(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (ready, creating int, err error) {
	return s.s.db.pools().Count(ctx, sb, freshAfter)
}

// Retire releases the pool instances beyond size or made before freshAfter.
func (s SystemPools) Retire(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time, size int) (int64, error) {
	return s.s.db.pools().Retire(ctx, sb, freshAfter, size)
}

// Running returns up to limit of the workspace's unclaimed pool instances
// that run, the longest ready first.
func (s SystemPools) Running(ctx context.Context, workspaceID string, limit int) ([]auxilia.Instance, error) {
	return s.s.db.pools().Running(ctx, workspaceID, limit)
}

// MarkPaused records that an unclaimed pool instance is being paused,
// unless it was claimed meanwhile.
func (s SystemPools) MarkPaused(ctx context.Context, id string, at time.Time) (bool, error) {
	return s.s.db.pools().MarkPaused(ctx, id, at)
}

// Sandboxes returns up to limit live sandboxes after the id after.
func (s SystemPools) Sandboxes(ctx context.Context, after string, limit int) ([]auxilia.Sandbox, error) {
	return s.s.db.pools().Sandboxes(ctx, after, limit)
}

// Failures returns the pool's run of failed creates.
func (s SystemPools) Failures(ctx context.Context, sandboxID string) (auxilia.PoolFailures, error) {
	return s.s.db.pools().Failures(ctx, sandboxID)
}

// SetFailures records the pool's run of failed creates.
func (s SystemPools) SetFailures(ctx context.Context, f auxilia.PoolFailures) error {
	return s.s.db.pools().SetFailures(ctx, f)
}

// TenantQuotas are the limits the operator set on the workspace, as its
// members see them.
type TenantQuotas struct{ t Tenant }

// Quotas returns the workspace's quotas.
func (t Tenant) Quotas() TenantQuotas { return TenantQuotas{t} }

// Use returns each quota with its current use.
func (s TenantQuotas) Use(ctx context.Context) ([]auxilia.QuotaUse, error) {
	return s.t.db.quotas().Use(ctx, s.t.ws)
}

// SystemQuotas are the workspaces' quotas as the operator sets them (the
// auxilia command): no workspace sets its own.
type SystemQuotas struct{ s System }

// Quotas returns the operator's quotas.
func (s System) Quotas() SystemQuotas { return SystemQuotas{s} }

// Set changes the workspace's settings that update names and returns them all.
func (s SystemQuotas) Set(ctx context.Context, workspaceID string, update auxilia.QuotaSettings) (auxilia.QuotaSettings, error) {
	return s.s.db.quotas().Set(ctx, workspaceID, update)
}

// Use returns each of the workspace's quotas with its current use.
func (s SystemQuotas) Use(ctx context.Context, workspaceID string) ([]auxilia.QuotaUse, error) {
	return s.s.db.quotas().Use(ctx, workspaceID)
}

// ListInstances returns a page of the workspace's active instances f picks,
// with their sandboxes and threads.
func (s TenantInstances) ListInstances(ctx context.Context, f auxilia.InstanceFilter, req auxilia.PageRequest) (auxilia.Page[auxilia.InstanceUse], error) {
	return s.t.db.instances().ListInstances(ctx, s.t.ws, f, req)
}

// ActiveCounts returns how many active instances each of the sandboxes has.
func (s TenantInstances) ActiveCounts(ctx context.Context, sandboxIDs []string) (map[string]int, error) {
	return s.t.db.instances().ActiveCounts(ctx, s.t.ws, sandboxIDs)
}

// ProviderPool returns how the sandbox's provider-kept pool last stood.
func (s TenantPools) ProviderPool(ctx context.Context, sandboxID string) (auxilia.ProviderPool, bool, error) {
	return s.t.db.pools().ProviderPool(ctx, sandboxID)
}

// ProviderPool returns how the sandbox's provider-kept pool last stood.
func (s SystemPools) ProviderPool(ctx context.Context, sandboxID string) (auxilia.ProviderPool, bool, error) {
	return s.s.db.pools().ProviderPool(ctx, sandboxID)
}

// SetProviderPool records how a provider-kept pool stands.
func (s SystemPools) SetProviderPool(ctx context.Context, p auxilia.ProviderPool) error {
	return s.s.db.pools().SetProviderPool(ctx, p)
}

// ForgetProviderPool records that the provider removed the sandbox's pool.
func (s SystemPools) ForgetProviderPool(ctx context.Context, sandboxID string) error {
	return s.s.db.pools().ForgetProviderPool(ctx, sandboxID)
}

// DeletedWithProviderPools returns deleted sandboxes whose provider still keeps a pool.
func (s SystemPools) DeletedWithProviderPools(ctx context.Context, limit int) ([]auxilia.Sandbox, error) {
	return s.s.db.pools().DeletedWithProviderPools(ctx, limit)
}
