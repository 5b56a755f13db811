package run

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
	"github.com/auxilia/sandboxes/pkg/provider"
)

// touchEvery bounds how often a tool call records the run's activity.
const touchEvery = 10 * time.Second

// callTimeout bounds a tool call other than a command, whose own timeout bounds it.
const callTimeout = 2 * time.Minute

// call is a tool call allowed to go ahead: the run, its instance and the client to reach it.
type call struct {
	run      auxilia.Run
	sandbox  auxilia.Sandbox
	config   provider.Config
	client   provider.Client
	instance provider.Instance
	// filesInWorkDir: the provider's file tools reach only the working
	// directory (see provider.Descriptor.FilesInWorkDir).
	filesInWorkDir bool
}

// Call describes a tool call for the approval check and the audit log.
type Call struct {
	Tool string
	// Args are the call's arguments as a person approving it would read them.
	Args map[string]any
	// Input is the tool's input as the caller gave it: a repeated call
	// matches a person's approval by it.
	Input any
	// Approved is set when the agent runtime says a person approved the call.
	Approved bool
}

// begin checks that the run may call the tool now (active, with a sandbox
// the agent still has, the tool not disabled, approved if it needs to be)
// and opens what the call needs.
func (s *Service) begin(ctx context.Context, workspaceID, runID string, c Call) (*call, error) {
	view, err := s.allowed(ctx, workspaceID, runID, c)
	if err != nil {
		return nil, err
	}
	r, agent, inst := view.Run, view.Agent, view.Instance
	if policyOf(agent.Binding, c.Tool) == auxilia.NeedsApproval {
		if err := s.approve(ctx, r, agent, c); err != nil {
			return nil, err
		}
	}
	if !view.HasInstance {
		return nil, auxilia.NotFound("instance")
	}
	if inst.Status != auxilia.InstanceLive {
		return nil, notActive(r, "its sandbox instance was released (its sandbox, agent or thread changed); start a new run")
	}
	if view.Sandbox.ID != r.SandboxID {
		return nil, notActive(r, "its sandbox was deleted; start a new run")
	}
	client, sb, err := s.Sandboxes.ClientOf(view.Sandbox, view.Sealed)
	if err != nil {
		return nil, unusable(sb, err)
	}
	cfg, err := s.Sandboxes.Config(sb)
	if err != nil {
		return nil, err
	}
	desc, err := s.Sandboxes.Describe(sb)
	if err != nil {
		return nil, err
	}
	if inst.PausedAt != nil {
		// Paused while the run was idle: resumed before it is used.
		inst, err = s.reconnect(ctx, sb, client, inst)
		if errors.Is(err, provider.ErrGone) {
			return nil, notActive(r, "its sandbox instance is gone; start a new run")
		}
		if err != nil {
			return nil, err
		}
	}
	pinst, err := s.providerInstance(inst)
	if err != nil {
		return nil, err
	}
	// The run as read says when it was last active: a call within
	// touchEvery of that sends nothing.
	if now := time.Now().UTC(); now.Sub(r.LastActivityAt) >= touchEvery {
		if err := s.Runs(r.WorkspaceID).Touch(ctx, r.ID, now, touchEvery); err != nil {
			return nil, err
		}
	}
	return &call{run: r, sandbox: sb, config: cfg, client: client, instance: pinst, filesInWorkDir: desc.FilesInWorkDir}, nil
}

// allowed checks that the run may call the tool now: active, with a
// sandbox the agent still has, the tool not disabled; it returns what the
// call looked at, read in one round trip. Whether the call needs a
// person's approval is the caller's to check.
func (s *Service) allowed(ctx context.Context, workspaceID, runID string, c Call) (auxilia.CallView, error) {
	view, err := s.Runs(workspaceID).CallView(ctx, runID)
	if err != nil {
		return view, err
	}
	r, agent := view.Run, view.Agent
	if r.Status != auxilia.RunActive {
		return view, notActive(r, "it is "+string(r.Status)+"; start a new run")
	}
	if time.Since(r.LastActivityAt) > s.opt.IdleTimeout {
		s.expire(ctx, r)
		r.Status = auxilia.RunExpired
		return view, notActive(r, fmt.Sprintf("it expired after %s without a tool call; start a new run", s.opt.IdleTimeout))
	}
	if r.SandboxID == "" {
		return view, auxilia.Errorf(auxilia.CodeToolDisabled, "This run has no sandbox: its agent runs without code execution.")
	}
	if agent.Binding == nil || agent.Binding.SandboxID != r.SandboxID {
		return view, notActive(r, "the agent's sandbox changed since it started; start a new run")
	}
	if policyOf(agent.Binding, c.Tool) == auxilia.Disabled {
		return view, auxilia.Errorf(auxilia.CodeToolDisabled, "The tool %s is disabled for agent %q.", c.Tool, agent.Name).With("tool", c.Tool)
	}
	return view, nil
}

// policyOf is the binding's policy for a tool: the tool's default when the
// binding was made before the tool was added.
func policyOf(b *auxilia.Binding, tool string) auxilia.ToolPolicy {
	if p, ok := b.Tools[tool]; ok {
		return p
	}
	t, _ := LookupTool(tool)
	return t.Default
}

// callTouchEvery is how often a long tool call records its run's (and
// thread's) activity: well within the minute a thread must be idle before
// the idle job or an exhausted instance-hours quota pauses its instance, so
// neither pauses one under a running call.
var callTouchEvery = 20 * time.Second

// keepAlive runs fn while telling the provider, every KeepAliveEvery, that
// the instance is in use (a long command may use its whole timeout), and
// recording the run's activity every callTouchEvery.
func (s *Service) keepAlive(ctx context.Context, c *call, fn func() error) error {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(s.opt.KeepAliveEvery)
		defer tick.Stop()
		touch := time.NewTicker(callTouchEvery)
		defer touch.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				_ = c.client.KeepAlive(ctx, c.instance)
			case <-touch.C:
				_ = s.Runs(c.run.WorkspaceID).Touch(ctx, c.run.ID, time.Now().UTC(), callTouchEvery/2)
			}
		}
	}()
	err := fn()
	close(done)
	<-stopped
	return err
}

// providerError turns a provider failure during a tool call into what the caller reads.
func (s *Service) providerError(c *call, err error) error {
	if err == nil || auxilia.ErrorCode(err) != auxilia.CodeInternal {
		return err
	}
	var pe *provider.Error
	if errors.As(err, &pe) && errors.Is(err, provider.ErrBusy) {
		return busy(c.sandbox, pe)
	}
	return unavailable(c.sandbox, err)
}

// DescribeArgs names what a tool call works on (its path, or its command)
// for the audit log.
func DescribeArgs(args map[string]any) string {
	if p, ok := args["path"]; ok {
		return fmt.Sprint(p)
	}
	if cmd, ok := args["command"]; ok {
		return fmt.Sprintf("%q", cmd)
	}
	if _, ok := args["terminal"]; ok {
		return "in an interactive terminal"
	}
	return ""
}
