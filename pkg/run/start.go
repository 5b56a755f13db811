package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
	"github.com/auxilia/sandboxes/pkg/shell"
)

// ReplacedNotice tells the agent's user that the thread's earlier instance is gone.
const ReplacedNotice = "The sandbox of this thread no longer existed at the provider, so this run has a new one: files from earlier runs are gone."

// RestoredNotice tells the agent's user that the thread's instance is a new
// one made from its files as they were kept at `at`.
func RestoredNotice(at time.Time) string {
	return "The sandbox of this thread was restored from its files kept at " + at.UTC().Format(time.RFC3339) +
		": it is a new instance, and changes made after then are gone."
}

// makingYield is how much later than their request a start's statements
// take their turn for a database connection (auxilia.YieldTurn) once the
// start knows it has no instance to reconnect: it is about to make,
// resume or restore one, or wait for another run to, which keeps it at its
// provider for seconds, while a warm or pooled start's few statements are
// all it waits for besides one provider round trip. In a burst of new
// threads, the pooled starts then pass the others' choices and creates;
// past it, the older go first again, so a steady stream of warm starts
// never holds a create back for longer.
const makingYield = 100 * time.Millisecond

// Start begins a run of the agent on the thread keyed key. An agent with a
// sandbox gets a live instance: the thread's own, reconnected (its
// reconnect is the run's probe), or a new one made after a probe, or a
// replacement when the provider says the old one is gone.
func (s *Service) Start(ctx context.Context, workspaceID, agentID, key string) (auxilia.Run, error) {
	return s.StartReporting(ctx, workspaceID, agentID, key, Progress{})
}

// StartReporting is Start, telling progress each step as it begins and
// the package installer's output as it is written.
func (s *Service) StartReporting(ctx context.Context, workspaceID, agentID, key string, progress Progress) (auxilia.Run, error) {
	if !auxilia.ValidThreadKey(key) {
		var fe auxilia.FieldErrors
		fe.Add("thread_id", "must be 1 to 128 letters, digits or . _ : -, and not . or ..")
		return auxilia.Run{}, fe.Err()
	}
	// The start looks at its thread's instance, its agent and its sandbox
	// in one round trip. A warm start reconnects the live instance
	// straight away with what it saw, and a new thread's start claims an
	// instance of its sandbox's warm pool in the same round trip, or in
	// one more where its agent's pool is not known yet (claimAhead); any
	// other start yields its statements' turn for a connection
	// (makingYield) and takes its turn to choose (turn.go) first, and one
	// that waited for it reads its agent and sandbox again, as they are then.
	now := time.Now()
	asked := s.plans.ask(agentID, s.empty, now)
	view, err := s.Threads(workspaceID).StartView(ctx, agentID, key, asked)
	if err != nil {
		return auxilia.Run{}, err
	}
	look := peek{inst: view.Instance, live: view.Live}
	if !look.warm() {
		if look.claimed, err = s.claimAhead(ctx, view, key, asked, now); err != nil {
			return auxilia.Run{}, err
		}
	}
	t := &turn{q: s.choosing}
	if !look.chosen() {
		ctx = auxilia.YieldTurn(ctx, makingYield)
		waited, err := t.take(ctx)
		if err != nil {
			return auxilia.Run{}, err
		}
		if waited {
			if view.Agent, err = s.Agents.Get(ctx, workspaceID, agentID); err != nil {
				return auxilia.Run{}, err
			}
			view.Sandbox = auxilia.Sandbox{}
		}
	}
	defer t.give()
	agent := view.Agent
	run := auxilia.Run{ID: auxilia.NewID(), WorkspaceID: workspaceID, AgentID: agentID, ThreadKey: key}
	threadID := ""
	if agent.Binding != nil {
		client, sb, err := s.boundClient(ctx, view)
		if err != nil {
			return auxilia.Run{}, s.keepFailure(ctx, agent, key, unusable(sb, err))
		}
		got, err := s.allocate(ctx, agent, run, sb, client, look, t, progress)
		if err != nil {
			return auxilia.Run{}, s.keepFailure(ctx, agent, key, err)
		}
		progress.step(StepReady, fmt.Sprintf("Instance %s of %s is ready.", got.instance.ProviderRef, sb.Name))
		run, threadID = runOn(run, sb, got), got.instance.ThreadID
	}
	out, err := s.recordStart(ctx, agent, run, threadID)
	if err == nil {
		s.Metrics.RunStarted(out.Provider)
		switch {
		case out.Replaced:
			s.Metrics.InstanceChanged(out.Provider, "replaced")
		case out.Created:
			s.Metrics.InstanceChanged(out.Provider, "created")
		}
	}
	return out, err
}

// boundClient is the client of the sandbox view's agent is bound to: made
// from the sandbox the view read with it, else read now.
func (s *Service) boundClient(ctx context.Context, view auxilia.StartView) (provider.Client, auxilia.Sandbox, error) {
	if id := view.Agent.Binding.SandboxID; view.Sandbox.ID != id {
		return s.Sandboxes.Client(ctx, view.Agent.WorkspaceID, id)
	}
	return s.Sandboxes.ClientOf(view.Sandbox, view.Sealed)
}

// runOn is run as it starts on the instance got of sb.
func runOn(run auxilia.Run, sb auxilia.Sandbox, got ensured) auxilia.Run {
	run.SandboxID, run.InstanceID, run.Created, run.Replaced = sb.ID, got.instance.ID, got.created, got.replaced
	run.SandboxName, run.Provider, run.InstanceRef = sb.Name, sb.Provider, got.instance.ProviderRef
	switch {
	case got.restoredFrom != nil:
		run.Notice = RestoredNotice(*got.restoredFrom)
	case got.replaced:
		run.Notice = ReplacedNotice
	}
	return run
}

// recordStart records run's start on its thread, with its audit entry: in
// one round trip when it runs on the instance of its thread (threadID)
// and the store can, or else in a transaction (record), which also makes a
// thread met for the first time and says why a thread whose instance
// changed meanwhile cannot have the run.
func (s *Service) recordStart(ctx context.Context, agent auxilia.Agent, run auxilia.Run, threadID string) (auxilia.Run, error) {
	entry := auxilia.Audited(ctx, run.WorkspaceID, "run.start", "run", run.ID, describeStart(agent, run))
	out, recorded, err := s.Runs(run.WorkspaceID).StartOnInstance(ctx, run, threadID, entry)
	if err != nil || recorded {
		return out, err
	}
	err = s.Tx.InTx(ctx, func(ctx context.Context) error {
		out, err = s.record(ctx, agent, run)
		return err
	})
	return out, err
}

// record records run's start on its thread, in ctx's transaction, with
// its audit entry, and returns it as stored. The thread must still have
// the instance the run got: else the error rolls the transaction back.
// A thread met for the first time (an agent without a sandbox makes none
// beforehand) is made first.
func (s *Service) record(ctx context.Context, agent auxilia.Agent, run auxilia.Run) (auxilia.Run, error) {
	run.StartedAt = time.Now().UTC().Truncate(time.Microsecond)
	out, instanceID, err := s.Runs(run.WorkspaceID).Start(ctx, run)
	if auxilia.IsCode(err, auxilia.CodeNotFound) {
		if _, err := s.Threads(run.WorkspaceID).Lock(ctx, run.AgentID, run.ThreadKey); err != nil {
			return auxilia.Run{}, err
		}
		out, instanceID, err = s.Runs(run.WorkspaceID).Start(ctx, run)
	}
	if err != nil {
		return auxilia.Run{}, err
	}
	if run.InstanceID != "" && instanceID != run.InstanceID {
		return auxilia.Run{}, auxilia.Errorf(auxilia.CodeConflict, "The thread's sandbox changed while the run started (its sandbox or agent was changed): start the run again.")
	}
	return out, auxilia.Audit(ctx, s.Audit, run.WorkspaceID, "run.start", "run", out.ID, describeStart(agent, out))
}

// awaitCreation waits until another run has made the thread's instance (or
// given up), polling the database when that run is in another process.
func (s *Service) awaitCreation(ctx context.Context, inst auxilia.Instance, since time.Time) error {
	if time.Since(since) > s.opt.CreateLease {
		return fmt.Errorf("another run has been creating this thread's instance for over %s", s.opt.CreateLease)
	}
	if done := s.creating.wait(inst.ID); done != nil {
		select {
		case <-done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	delay := min(50*time.Millisecond+time.Since(since)/4, time.Second)
	select {
	case <-time.After(delay):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// reconnect makes the thread's live instance usable again. The call is
// authenticated, so it is the run's probe too.
func (s *Service) reconnect(ctx context.Context, sb auxilia.Sandbox, client provider.Client, inst auxilia.Instance) (auxilia.Instance, error) {
	pinst, err := s.providerInstance(inst)
	if err != nil {
		return inst, err
	}
	// Bounded like a creation: starting a stopped instance may take minutes, never forever.
	callCtx, cancel := context.WithTimeout(ctx, s.opt.CreateLease)
	defer cancel()
	start := time.Now()
	got, err := client.Reconnect(callCtx, pinst)
	s.Sandboxes.Observe(ctx, sb, ignoreGone(err), time.Since(start))
	if errors.Is(err, provider.ErrGone) {
		return inst, err
	}
	if err != nil {
		return inst, unavailable(sb, err)
	}
	if inst.PausedAt != nil {
		// Rules edited while it was paused are taken now, before it runs
		// anything: until they are, it stays paused in the store, so that
		// the next run tries again.
		if err := s.resumeNetwork(callCtx, got, client); err != nil {
			return inst, unavailable(sb, err)
		}
		if err := s.Instances(inst.WorkspaceID).MarkResumed(ctx, inst.ID); err != nil {
			return inst, err
		}
		inst.PausedAt = nil
		s.Metrics.InstanceChanged(sb.Provider, "resumed")
	}
	if !bytes.Equal(got.State, pinst.State) {
		sealed, err := s.sealState(inst.ID, got.State)
		if err != nil {
			return inst, err
		}
		if err := s.Instances(inst.WorkspaceID).SetState(ctx, inst.ID, sealed); err != nil {
			return inst, err
		}
		inst.State = sealed
	}
	return inst, nil
}

// A gone instance says nothing bad about the provider's health.
func ignoreGone(err error) error {
	if errors.Is(err, provider.ErrGone) {
		return nil
	}
	return err
}

// create makes the claimed instance at the provider (after a probe, unless
// an authenticated reconnect has just answered) and installs the default
// packages. On any failure nothing is left behind: the thread points at
// nothing and whatever the provider made is destroyed.
func (s *Service) create(ctx context.Context, sb auxilia.Sandbox, client provider.Client, inst auxilia.Instance, thread auxilia.Thread, probe bool, from *auxilia.KeptFiles, progress Progress) (auxilia.Instance, error) {
	s.creating.begin(inst.ID)
	defer s.creating.finish(inst.ID)
	// The creation may not outlive its claim: past the lease, another run may take over.
	ctx, cancel := context.WithTimeout(ctx, s.opt.CreateLease)
	defer cancel()
	abandon := func() { _ = s.Instances(inst.WorkspaceID).MarkDestroyed(context.WithoutCancel(ctx), inst.ID) }
	// The sandbox's creates take turns, within the lease, holding no
	// database connection while they wait: a burst of new threads asks the
	// provider for a bounded number at once, in the order they came.
	leave, err := s.creates.enter(ctx, sb.ID)
	if err != nil {
		abandon()
		return inst, unavailableBecause(sb, "provider", "waiting for a turn to create an instance: "+err.Error())
	}
	defer leave()
	if probe {
		progress.step(StepProbing, fmt.Sprintf("Checking that %s (%s) answers.", sb.Name, sb.Provider))
		if res := s.Sandboxes.Probe(ctx, sb, client); !res.OK {
			abandon()
			return inst, unavailableBecause(sb, res.Reason, res.Detail)
		}
	}
	cfg, err := s.Sandboxes.Config(sb)
	if err != nil {
		abandon()
		return inst, err
	}
	return s.build(ctx, sb, client, cfg, inst, provider.Labels{Workspace: sb.WorkspaceID, Sandbox: sb.ID, Thread: thread.ID, Instance: inst.ID}, from, progress)
}

// build makes an instance whose creation is claimed (its row is creating)
// at the provider, installs the default packages and records it live. On
// any failure nothing is left behind: whatever the provider made is
// destroyed, now or by the reaper. With from set, it is made from those
// kept files, which hold their packages already.
func (s *Service) build(ctx context.Context, sb auxilia.Sandbox, client provider.Client, cfg provider.Config, inst auxilia.Instance, labels provider.Labels, from *auxilia.KeptFiles, progress Progress) (auxilia.Instance, error) {
	abandon := func() { _ = s.Instances(inst.WorkspaceID).MarkDestroyed(context.WithoutCancel(ctx), inst.ID) }
	// A create that fails after the provider made something: leave it to the reaper, which destroys it.
	release := func() { _ = s.Instances(inst.WorkspaceID).Release(context.WithoutCancel(ctx), inst.ID) }
	// Record the provider's id the moment it exists: if this process dies
	// before the instance is ready, the reaper can still destroy it.
	created := provider.WithCreated(ctx, func(id string) {
		_ = s.Instances(inst.WorkspaceID).SetProviderRef(context.WithoutCancel(ctx), inst.ID, id)
	})
	var pinst provider.Instance
	var err error
	if from != nil {
		progress.step(StepCreating, fmt.Sprintf("Creating an instance at %s from the files kept at %s.", sb.Provider, from.At.UTC().Format(time.RFC3339)))
		pinst, err = s.createFrom(created, client, labels, *from)
	} else {
		progress.step(StepCreating, fmt.Sprintf("Creating an instance at %s.", sb.Provider))
		pinst, err = client.Create(created, labels)
	}
	if err != nil {
		release()
		return inst, unavailable(sb, err)
	}
	destroy := func() {
		if client.Destroy(context.WithoutCancel(ctx), pinst) == nil {
			s.Metrics.InstanceChanged(sb.Provider, "destroyed")
		}
		abandon()
	}
	// Restored files hold the packages installed when they were new.
	if pkgs := cfg.Packages(); len(pkgs) > 0 && from == nil {
		progress.step(StepInstalling, "Installing "+strings.Join(pkgs, ", ")+".")
		if err := s.install(ctx, client, pinst, pkgs, progress.OnOutput); err != nil {
			destroy()
			return inst, unavailableBecause(sb, "config", err.Error())
		}
	}
	sealed, err := s.sealState(inst.ID, pinst.State)
	if err != nil {
		destroy()
		return inst, err
	}
	live, err := s.Instances(inst.WorkspaceID).MarkLive(ctx, inst.ID, pinst.ID, pinst.WorkDir, sealed)
	if err != nil || !live {
		destroy()
		if err == nil {
			err = auxilia.Errorf(auxilia.CodeConflict, "The thread's sandbox was changed while its instance was being created: start the run again.")
		}
		return inst, err
	}
	inst.ProviderRef, inst.WorkDir, inst.State, inst.Status = pinst.ID, pinst.WorkDir, sealed, auxilia.InstanceLive
	return inst, nil
}

// install pip-installs the default packages into a new instance, passing
// pip's output to onOutput (when set) as it is written. They were
// validated as plain requirement specifiers; they are quoted all the same.
func (s *Service) install(ctx context.Context, client provider.Client, inst provider.Instance, pkgs []string, onOutput func(string)) error {
	// Without --quiet: pip's lines (collecting, downloading, installed) are the install's progress.
	cmd := "python3 -m pip install --no-input --disable-pip-version-check --progress-bar off " + shell.Join(pkgs)
	req := provider.ExecRequest{Command: cmd, Timeout: s.opt.InstallTimeout, OutputLimit: s.opt.OutputLimit, Install: true}
	if onOutput != nil {
		req.OnOutput = func(_, text string) { onOutput(text) }
	}
	res, err := client.Execute(ctx, inst, req)
	switch {
	case err != nil:
		return fmt.Errorf("installing the default packages failed: %s", reasonText(err))
	case res.ExitCode != 0:
		return fmt.Errorf("installing the default packages failed (exit code %d):\n%s", res.ExitCode, tail(res.Output, 4000))
	}
	return nil
}

// tail keeps the end of s: an installer says what went wrong last.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func describeStart(agent auxilia.Agent, r auxilia.Run) string {
	switch {
	case r.SandboxID == "":
		return fmt.Sprintf("agent %q on thread %s, without a sandbox", agent.Name, r.ThreadKey)
	case r.Replaced:
		return fmt.Sprintf("agent %q on thread %s, in a new instance %s of sandbox %q (the earlier one was gone)", agent.Name, r.ThreadKey, r.InstanceRef, r.SandboxName)
	case r.Created:
		return fmt.Sprintf("agent %q on thread %s, in a new instance %s of sandbox %q", agent.Name, r.ThreadKey, r.InstanceRef, r.SandboxName)
	default:
		return fmt.Sprintf("agent %q on thread %s, in instance %s of sandbox %q", agent.Name, r.ThreadKey, r.InstanceRef, r.SandboxName)
	}
}
