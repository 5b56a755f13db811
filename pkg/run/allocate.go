package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// A run start gets its thread's instance through a small state machine.
// Under the thread's row lock, in a short transaction, the strategies choose
// a step in turn; the step is then taken outside any transaction and says
// what comes next: another step, a new choice, or the instance.
//
// Exactly one instance is made per thread however many runs start at once:
// the lock lets one run claim the creation, and the others wait for it. A
// warm start, whose thread has its live instance, first peeks without the
// lock and reconnects it (peek).

// ensured is the instance a run got.
type ensured struct {
	instance auxilia.Instance
	created  bool
	replaced bool
	// restoredFrom is when the files a new instance was made from were kept.
	restoredFrom *time.Time
}

// allocation is one run start's way to its thread's instance.
type allocation struct {
	svc    *Service
	agent  auxilia.Agent
	key    string
	run    auxilia.Run // the run starting, its instance not known yet
	sb     auxilia.Sandbox
	client provider.Client
	// progress hears of each step as it begins.
	progress Progress
	// replaced is set once the thread's earlier instance was found gone.
	replaced bool
	// turn is the start's place among those reading and choosing (turn.go).
	turn *turn
	// waitStart is when this start began waiting for another run's
	// creation, waitedFor the instance it waited for.
	waitStart time.Time
	waitedFor string
}

// A step is one move of an allocation; taking it gives the next step.
type step interface {
	take(ctx context.Context, a *allocation) (step, error)
}

// A strategy is one way of giving a thread an instance. It looks at the
// thread under its row lock and chooses a step, or nil to leave the choice
// to the next strategy. A warm pool or a resume is one more strategy, tried
// before creation.
type strategy interface {
	choose(ctx context.Context, a *allocation, thread auxilia.Thread, now time.Time) (step, error)
}

// defaultStrategies are tried in this order; the last one always chooses.
// A warm pool (pool.go) is tried before creation, where there are pools.
func defaultStrategies(pools bool) []strategy {
	if pools {
		return []strategy{threadsInstance{}, keptFiles{}, poolInstance{}, newInstance{}}
	}
	return []strategy{threadsInstance{}, keptFiles{}, newInstance{}}
}

// allocate gives the thread of run a live instance of sb, starting from
// what the start saw of it as it began (look). The start's turn is held
// while it chooses, and given back before any other step.
func (s *Service) allocate(ctx context.Context, agent auxilia.Agent, run auxilia.Run, sb auxilia.Sandbox, client provider.Client, look peek, t *turn, progress Progress) (ensured, error) {
	a := &allocation{svc: s, agent: agent, key: run.ThreadKey, run: run, sb: sb, client: client, turn: t, progress: progress}
	var at step = look
	for {
		switch at.(type) {
		case peek, choice:
		default:
			t.give()
		}
		next, err := at.take(ctx, a)
		if err != nil {
			return ensured{}, err
		}
		if got, ok := next.(allocated); ok {
			return got.ensured, nil
		}
		at = next
	}
}

// peek is a warm start's way around the lock: a thread whose live,
// running instance is of the sandbox reconnects it straight away, as the
// locked choice would have chosen. The run's own transaction then checks,
// under the lock, that the thread still has that instance. Anything else
// (no instance, a paused one, one being made) is chosen under the lock.
// The instance is read, without a lock, as the start begins, with the
// agent and its sandbox (the start's look, in start.go).
// A new thread's start may have claimed a pool's instance already, ahead
// of any choice (claimAhead, in pool.go): it takes it as the choice would.
type peek struct {
	inst    auxilia.Instance
	live    bool
	claimed *auxilia.Instance
}

// warm tells whether the thread's instance is live and running: the start
// reconnects it, unless its agent's sandbox has changed.
func (p peek) warm() bool { return p.live && p.inst.PausedAt == nil }

// chosen tells whether the start knows its instance without a choice.
func (p peek) chosen() bool { return p.warm() || p.claimed != nil }

func (p peek) take(ctx context.Context, a *allocation) (step, error) {
	switch {
	case p.claimed != nil:
		return claimed{*p.claimed}, nil
	case p.warm() && p.inst.SandboxID == a.sb.ID:
		return reconnecting{p.inst}, nil
	}
	return choice{}, nil
}

// choice locks the thread and lets the strategies choose the next step,
// in the start's turn: a choice made again waits for a new one.
type choice struct{}

func (choice) take(ctx context.Context, a *allocation) (step, error) {
	if _, err := a.turn.take(ctx); err != nil {
		return nil, err
	}
	var next step
	err := a.svc.Tx.InTx(ctx, func(ctx context.Context) error {
		thread, err := a.svc.Threads(a.agent.WorkspaceID).Lock(ctx, a.agent.ID, a.key)
		if err != nil {
			return err
		}
		if thread.Instance == nil && a.waitedFor != "" {
			// The run we waited for gave up; its failure is ours too, rather than a retry storm.
			return unavailableBecause(a.sb, "provider", "creating this thread's instance failed in another run")
		}
		now := time.Now()
		for _, st := range a.svc.strategies {
			if next, err = st.choose(ctx, a, thread, now); next != nil || err != nil {
				return err
			}
		}
		return errors.New("run: no strategy gave the thread an instance")
	})
	return next, err
}

// threadsInstance keeps the thread's own instance: it reconnects a live
// one (resuming it when paused), or waits while another run creates it. Anything else the thread
// points at (made for another sandbox, or by a creator that died) is
// released for the reaper.
type threadsInstance struct{}

func (threadsInstance) choose(ctx context.Context, a *allocation, thread auxilia.Thread, now time.Time) (step, error) {
	current := thread.Instance
	switch {
	case current == nil:
		return nil, nil
	case current.SandboxID == a.sb.ID && current.Status == auxilia.InstanceLive:
		return reconnecting{*current}, nil
	case current.SandboxID == a.sb.ID && current.Status == auxilia.InstanceCreating &&
		current.LeaseUntil != nil && current.LeaseUntil.After(now):
		return waiting{*current}, nil
	}
	return nil, a.svc.Instances(a.agent.WorkspaceID).Release(ctx, current.ID)
}

// keptFiles gives a thread without an instance, whose files were kept, a
// new instance made from them.
type keptFiles struct{}

func (keptFiles) choose(ctx context.Context, a *allocation, thread auxilia.Thread, now time.Time) (step, error) {
	if thread.Instance != nil || thread.Kept == nil || thread.Kept.SandboxID != a.sb.ID {
		return nil, nil
	}
	inst, err := a.svc.Instances(a.agent.WorkspaceID).Claim(ctx, thread, a.sb.ID, a.run.ID, now.Add(a.svc.opt.CreateLease))
	return creating{inst: inst, thread: thread, from: thread.Kept}, err
}

// newInstance claims the creation of a new instance for the thread.
type newInstance struct{}

func (newInstance) choose(ctx context.Context, a *allocation, thread auxilia.Thread, now time.Time) (step, error) {
	inst, err := a.svc.Instances(a.agent.WorkspaceID).Claim(ctx, thread, a.sb.ID, a.run.ID, now.Add(a.svc.opt.CreateLease))
	return creating{inst: inst, thread: thread}, err
}

// reconnecting makes the thread's live instance usable again; one found
// gone is replaced.
type reconnecting struct{ inst auxilia.Instance }

func (r reconnecting) take(ctx context.Context, a *allocation) (step, error) {
	if r.inst.PausedAt != nil {
		a.progress.step(StepReconnecting, fmt.Sprintf("Resuming the thread's paused instance %s.", r.inst.ProviderRef))
	} else {
		a.progress.step(StepReconnecting, fmt.Sprintf("Reconnecting the thread's instance %s.", r.inst.ProviderRef))
	}
	got, err := a.svc.reconnect(ctx, a.sb, a.client, r.inst)
	switch {
	case errors.Is(err, provider.ErrGone):
		return replacing{r.inst}, nil
	case err != nil:
		return nil, err
	}
	return allocated{ensured{instance: got, replaced: a.replaced}}, nil
}

// replacing forgets an instance the provider no longer has, so that the
// next choice gives the thread another.
type replacing struct{ gone auxilia.Instance }

func (r replacing) take(ctx context.Context, a *allocation) (step, error) {
	a.replaced = true
	return choice{}, a.svc.Instances(a.agent.WorkspaceID).MarkDestroyed(ctx, r.gone.ID)
}

// waiting waits for another run to create the thread's instance, then
// chooses again.
type waiting struct{ inst auxilia.Instance }

func (w waiting) take(ctx context.Context, a *allocation) (step, error) {
	if a.waitStart.IsZero() {
		a.progress.step(StepWaiting, "Another run is creating this thread's instance: waiting for it.")
		a.waitStart, a.waitedFor = time.Now(), w.inst.ID
	}
	if err := a.svc.awaitCreation(ctx, w.inst, a.waitStart); err != nil {
		return nil, unavailableBecause(a.sb, "provider", err.Error())
	}
	return choice{}, nil
}

// creating makes the claimed instance at the provider. A replacement needs
// no probe: the reconnect that found the old one gone has just answered.
type creating struct {
	inst   auxilia.Instance
	thread auxilia.Thread
	from   *auxilia.KeptFiles // the kept files it starts from, if any
}

func (c creating) take(ctx context.Context, a *allocation) (step, error) {
	got, err := a.svc.create(ctx, a.sb, a.client, c.inst, c.thread, !a.replaced, c.from, a.progress)
	if err != nil {
		return nil, err
	}
	out := ensured{instance: got, created: true, replaced: a.replaced}
	if c.from != nil {
		out.restoredFrom = &c.from.At
	}
	return allocated{out}, nil
}

// allocated is the end: the thread has its instance.
type allocated struct{ ensured }

func (g allocated) take(context.Context, *allocation) (step, error) { return g, nil }
