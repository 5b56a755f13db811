package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// Pools keeps warm pools across workspaces, for the pool job: instances
// made ahead of any thread, and each pool's run of failed creates.
type Pools interface {
	Add(ctx context.Context, sb auxilia.Sandbox, lease time.Time) (auxilia.Instance, error)
	Count(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (ready, creating int, err error)
	Retire(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time, size int) (int64, error)
	Sandboxes(ctx context.Context, after string, limit int) ([]auxilia.Sandbox, error)
	Failures(ctx context.Context, sandboxID string) (auxilia.PoolFailures, error)
	SetFailures(ctx context.Context, f auxilia.PoolFailures) error
	// The pools providers keep themselves (ProviderPool): how each stood
	// when last told its size, and the deleted sandboxes' still kept.
	ProviderPool(ctx context.Context, sandboxID string) (auxilia.ProviderPool, bool, error)
	SetProviderPool(ctx context.Context, p auxilia.ProviderPool) error
	ForgetProviderPool(ctx context.Context, sandboxID string) error
	DeletedWithProviderPools(ctx context.Context, limit int) ([]auxilia.Sandbox, error)
	// Running and MarkPaused are for pausing the unclaimed instances of a
	// workspace whose instance-hours are used up.
	Running(ctx context.Context, workspaceID string, limit int) ([]auxilia.Instance, error)
	MarkPaused(ctx context.Context, id string, at time.Time) (bool, error)
}

// WarmPools are one workspace's warm pools, as its runs and views see them.
type WarmPools interface {
	Claim(ctx context.Context, t auxilia.Thread, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error)
	ClaimForNewThread(ctx context.Context, agentID, key string, sb auxilia.Sandbox, freshAfter time.Time) (auxilia.Instance, bool, error)
	Count(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (ready, creating int, err error)
	Paused(ctx context.Context, sb auxilia.Sandbox, freshAfter time.Time) (int, error)
	Failures(ctx context.Context, sandboxID string) (auxilia.PoolFailures, error)
	ProviderPool(ctx context.Context, sandboxID string) (auxilia.ProviderPool, bool, error)
}

// poolInstance gives a thread without an instance one of its sandbox's
// warm pool, when the pool has one ready: the claim is one statement in the
// thread's short transaction. An empty pool leaves the choice to creation,
// so the pool never makes a run slower than it would be without one.
type poolInstance struct{}

func (poolInstance) choose(ctx context.Context, a *allocation, thread auxilia.Thread, now time.Time) (step, error) {
	pool, err := a.svc.Sandboxes.WarmPool(a.sb)
	if err != nil {
		return nil, err
	}
	if pool.Size == 0 || a.svc.keptByProvider(a.sb) {
		return nil, nil // a provider-kept pool is the provider's: Create takes from it
	}
	start := time.Now()
	inst, ok, err := a.svc.WarmPools(a.agent.WorkspaceID).Claim(ctx, thread, a.sb, freshAfter(pool, now))
	if err != nil {
		return nil, err
	}
	a.svc.empty.found(a.sb, ok, start)
	a.svc.Metrics.PoolClaimed(a.sb.Provider, ok, time.Since(start))
	if !ok {
		return nil, nil
	}
	return claimed{inst}, nil
}

// claimAhead gives a new thread a ready instance of its sandbox's warm
// pool as its start begins, before the start takes its turn (turn.go):
// claims take a path of their own, so that in a burst of new threads the
// starts a pool serves never wait behind the choices of those it cannot.
// The view (asked) claims it in its own round trip where the agent's
// plan (claimPlans) is known; else one statement on Postgres makes the
// thread with the instance. A thread met before, a sandbox without a pool
// of ours, an empty pool, a pool lately found empty (emptyPools), or a
// workspace that bounds its agents' threads leave the instance to the
// choice under the thread's lock, which claims from the pool too.
func (s *Service) claimAhead(ctx context.Context, view auxilia.StartView, key string, asked *auxilia.PoolClaim, start time.Time) (*auxilia.Instance, error) {
	agent, sb := view.Agent, view.Sandbox
	plan, planned := s.planOf(view)
	s.plans.learn(agent.ID, plan, planned)
	if claim := view.Claim; claim.Tried {
		switch {
		case claim.Instance != nil && planned && plan.asked(asked):
			s.claimedAhead(sb, start)
			return claim.Instance, nil
		case claim.Instance != nil, planned && plan.asked(asked):
			// The claim made the thread, with an instance of a sandbox the
			// agent was bound to as the view's statements ran, which its
			// choice sorts out; or it found nothing, as a claim now would.
			return nil, nil
		}
	}
	if !planned || view.Instance.ID != "" || s.empty.known(sb, start) {
		return nil, nil
	}
	inst, ok, err := s.WarmPools(agent.WorkspaceID).ClaimForNewThread(ctx, agent.ID, key, sb, plan.freshAfter(start))
	if err != nil {
		return nil, err
	}
	if !ok {
		// Not proof that the pool is empty: the thread may have been made
		// meanwhile, or the workspace bound its threads.
		return nil, nil
	}
	s.claimedAhead(sb, start)
	return &inst, nil
}

// planOf is the claim plan of the view's agent: none where the agent is
// bound to no sandbox, or to one without a pool of ours (a config this
// server cannot read fails the start as it would without a pool).
func (s *Service) planOf(view auxilia.StartView) (claimPlan, bool) {
	agent, sb := view.Agent, view.Sandbox
	if agent.Binding == nil || sb.ID != agent.Binding.SandboxID {
		return claimPlan{}, false
	}
	pool, err := s.Sandboxes.WarmPool(sb)
	if err != nil || pool.Size == 0 || s.keptByProvider(sb) {
		return claimPlan{}, false
	}
	return claimPlan{pool: keyOf(sb), freshFor: time.Duration(pool.MaxIdleMinutes) * time.Minute}, true
}

// claimedAhead counts a claim ahead, begun at start, that found an instance.
func (s *Service) claimedAhead(sb auxilia.Sandbox, start time.Time) {
	s.empty.found(sb, true, start)
	s.Metrics.PoolClaimed(sb.Provider, true, time.Since(start))
}

// freshAfter is the oldest a ready instance of the pool may have become
// ready and still be handed out.
func freshAfter(pool provider.Pool, now time.Time) time.Time {
	return now.Add(-time.Duration(pool.MaxIdleMinutes) * time.Minute)
}

// claimed makes a pool's instance the thread's: a reconnect (the run's
// probe, as for a warm run) and, at the same time, where the provider can,
// the thread's labels in place of the pool's. A claimed instance found gone
// is forgotten and the thread chooses again.
type claimed struct{ inst auxilia.Instance }

func (c claimed) take(ctx context.Context, a *allocation) (step, error) {
	a.progress.step(StepReconnecting, fmt.Sprintf("Taking instance %s from the warm pool.", c.inst.ProviderRef))
	relabeled := make(chan struct{})
	go func() {
		defer close(relabeled)
		a.svc.relabel(ctx, a.client, c.inst)
	}()
	got, err := a.svc.reconnect(ctx, a.sb, a.client, c.inst)
	<-relabeled
	switch {
	case errors.Is(err, provider.ErrGone):
		return poolGone{c.inst}, nil
	case err != nil:
		return nil, err
	}
	return allocated{ensured{instance: got, replaced: a.replaced}}, nil
}

// relabel labels a claimed instance as its thread's at the provider, where
// the provider can. It is best effort: the instance keeps its Instance label
// (our id for it) either way, by which the reaper finds it, and a failure
// leaves only the pool's labels on it.
func (s *Service) relabel(ctx context.Context, client provider.Client, inst auxilia.Instance) {
	r, ok := client.(provider.Relabeler)
	if !ok {
		return
	}
	pinst, err := s.providerInstance(inst)
	if err != nil {
		return
	}
	_ = r.Relabel(ctx, pinst, provider.Labels{Workspace: inst.WorkspaceID, Sandbox: inst.SandboxID,
		Thread: inst.ThreadID, Instance: inst.ID})
}

// poolGone forgets a claimed instance the provider no longer has. The
// thread had no files in it, so unlike a replacement the run says nothing.
type poolGone struct{ gone auxilia.Instance }

func (p poolGone) take(ctx context.Context, a *allocation) (step, error) {
	return choice{}, a.svc.Instances(a.agent.WorkspaceID).MarkDestroyed(ctx, p.gone.ID)
}

// PoolStatus is what the sandbox's view shows of its warm pool. A sandbox
// whose config this server cannot read (its provider is not here) has none
// here: its view is still served.
func (s *Service) PoolStatus(ctx context.Context, sb auxilia.Sandbox) (auxilia.PoolStatus, error) {
	pool, err := s.Sandboxes.WarmPool(sb)
	if err != nil || pool.Size == 0 {
		return auxilia.PoolStatus{State: auxilia.PoolOff}, nil
	}
	out := auxilia.PoolStatus{Size: pool.Size}
	paused := 0
	if s.keptByProvider(sb) {
		out.Ready, out.Creating, err = s.providerPoolCounts(ctx, sb)
	} else {
		out.Ready, out.Creating, paused, err = s.poolCounts(ctx, sb, freshAfter(pool, time.Now()))
	}
	if err != nil {
		return out, err
	}
	f, err := s.WarmPools(sb.WorkspaceID).Failures(ctx, sb.ID)
	if err != nil {
		return out, err
	}
	f = currentFailures(f, sb)
	switch {
	case f.StoppedAt != nil:
		out.State, out.Failures, out.Detail = auxilia.PoolStopped, f.Count, stoppedDetail(f)
	case f.Count > 0:
		out.State, out.Failures, out.RetryAt, out.Detail = auxilia.PoolFailing, f.Count, f.RetryAt, failingDetail(f)
	case out.Ready >= out.Size:
		out.State = auxilia.PoolReady
	case out.Creating > 0:
		out.State = auxilia.PoolCreating
	default:
		out.State = auxilia.PoolWaiting
		room, use, limited, err := s.instanceRoom(ctx, sb.WorkspaceID)
		if err != nil {
			return out, err
		}
		if limited && room == 0 {
			out.Detail = quotaDetail(use)
		}
	}
	out.Detail = withPausedDetail(out.Detail, paused, out.Ready)
	return out, nil
}

// poolCounts counts a pool this server keeps: its instances ready, on
// their way, and paused among the ready ones.
func (s *Service) poolCounts(ctx context.Context, sb auxilia.Sandbox, fresh time.Time) (ready, creating, paused int, err error) {
	pools := s.WarmPools(sb.WorkspaceID)
	if ready, creating, err = pools.Count(ctx, sb, fresh); err != nil || ready == 0 {
		return ready, creating, 0, err
	}
	paused, err = pools.Paused(ctx, sb, fresh)
	return ready, creating, paused, err
}

// withPausedDetail adds to a pool's detail that some of its ready instances
// are paused, as an exhausted instance-hours quota pauses them: they are
// still handed out, and resumed by the run that takes one.
func withPausedDetail(detail string, paused, ready int) string {
	if paused == 0 {
		return detail
	}
	note := fmt.Sprintf("%d of the %d ready instances are paused, as the workspace's instance-hours quota was used up: "+
		"a run that takes one resumes it.", paused, ready)
	if detail == "" {
		return note
	}
	return detail + " " + note
}
