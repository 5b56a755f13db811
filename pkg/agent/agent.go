// Package agent manages agents and the sandbox each one is bound to.
package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// Store keeps one workspace's agents.
type Store interface {
	Create(ctx context.Context, a auxilia.Agent) (auxilia.Agent, error)
	Get(ctx context.Context, id string) (auxilia.Agent, error)
	List(ctx context.Context, req auxilia.PageRequest) (auxilia.Page[auxilia.Agent], error)
	Update(ctx context.Context, a auxilia.Agent) (auxilia.Agent, error)
	Delete(ctx context.Context, id string, version int) error
}

// Bindings keeps which sandbox each of a workspace's agents runs with.
type Bindings interface {
	Put(ctx context.Context, agentID, sandboxID string, tools map[string]auxilia.ToolPolicy, approval auxilia.ApprovalRule) error
	Get(ctx context.Context, agentID string) (auxilia.Binding, error)
	Delete(ctx context.Context, agentID string) error
}

// Sandboxes finds a workspace's sandboxes.
type Sandboxes interface {
	Get(ctx context.Context, id string) (auxilia.Sandbox, error)
}

// Instances releases the provider instances of an agent's threads, and
// ends the runs that worked in them.
type Instances interface {
	ReleaseForAgent(ctx context.Context, agentID string) (int64, error)
	EndRunsForAgent(ctx context.Context, agentID, notice string) (int64, error)
}

// Transactor runs work atomically under named locks.
type Transactor interface {
	InTx(ctx context.Context, fn func(ctx context.Context) error) error
	Lock(ctx context.Context, name string) error
}

// Service manages agents.
type Service struct {
	agents    func(workspaceID string) Store
	bindings  func(workspaceID string) Bindings
	sandboxes func(workspaceID string) Sandboxes
	instances func(workspaceID string) Instances
	audit     auxilia.Auditor
	tx        Transactor
}

// Deps are what the service works with.
type Deps struct {
	// Agents, Bindings, Sandboxes and Instances are the store bound to a workspace.
	Agents    func(workspaceID string) Store
	Bindings  func(workspaceID string) Bindings
	Sandboxes func(workspaceID string) Sandboxes
	Instances func(workspaceID string) Instances
	Audit     auxilia.Auditor
	Tx        Transactor
}

// New returns an agent service.
func New(d Deps) *Service {
	return &Service{agents: d.Agents, bindings: d.Bindings, sandboxes: d.Sandboxes, instances: d.Instances, audit: d.Audit, tx: d.Tx}
}

// Create adds an agent to the workspace.
func (s *Service) Create(ctx context.Context, workspaceID string, spec auxilia.AgentSpec) (auxilia.Agent, error) {
	spec, err := validateSpec(spec)
	if err != nil {
		return auxilia.Agent{}, err
	}
	var out auxilia.Agent
	err = s.tx.InTx(ctx, func(ctx context.Context) error {
		a, err := s.agents(workspaceID).Create(ctx, auxilia.Agent{AgentSpec: spec})
		if err != nil {
			return err
		}
		out = a
		return auxilia.Audit(ctx, s.audit, workspaceID, "agent.create", "agent", a.ID, fmt.Sprintf("created agent %q", a.Name))
	})
	return out, err
}

// PreviewCreate answers as Create would (the agent as it would be made, or
// the same error) and saves and audits nothing.
func (s *Service) PreviewCreate(_ context.Context, workspaceID string, spec auxilia.AgentSpec) (auxilia.Agent, error) {
	spec, err := validateSpec(spec)
	if err != nil {
		return auxilia.Agent{}, err
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	return auxilia.Agent{ID: auxilia.NewID(), WorkspaceID: workspaceID, AgentSpec: spec, Version: 1, CreatedAt: now, UpdatedAt: now}, nil
}

// PreviewPatch answers as Patch would (the agent as the patch would leave
// it, or the same error) and saves and audits nothing.
func (s *Service) PreviewPatch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Agent, error) {
	current, err := s.agents(workspaceID).Get(ctx, id)
	if err != nil {
		return auxilia.Agent{}, err
	}
	if err := expect.Check("agent", current.Version); err != nil {
		return auxilia.Agent{}, err
	}
	spec, _, err := mergeSpec(current.AgentSpec, patch)
	if err != nil {
		return auxilia.Agent{}, err
	}
	next := current
	next.AgentSpec = spec
	next.Version++
	next.UpdatedAt = time.Now().UTC().Truncate(time.Microsecond)
	return next, nil
}

// Get returns an agent of the workspace.
func (s *Service) Get(ctx context.Context, workspaceID, id string) (auxilia.Agent, error) {
	return s.agents(workspaceID).Get(ctx, id)
}

// List returns a page of the workspace's agents.
func (s *Service) List(ctx context.Context, workspaceID string, req auxilia.PageRequest) (auxilia.Page[auxilia.Agent], error) {
	return s.agents(workspaceID).List(ctx, req)
}

// Patch applies a JSON merge patch to an agent. expect, when set, is the
// version the caller read; without it the patch applies to the latest one.
func (s *Service) Patch(ctx context.Context, workspaceID, id string, patch json.RawMessage, expect auxilia.Expect) (auxilia.Agent, error) {
	var out auxilia.Agent
	err := s.tx.InTx(ctx, func(ctx context.Context) error {
		current, err := s.lockAgent(ctx, workspaceID, id, expect)
		if err != nil {
			return err
		}
		spec, changed, err := mergeSpec(current.AgentSpec, patch)
		if err != nil {
			return err
		}
		next := current
		next.AgentSpec = spec
		out, err = s.agents(workspaceID).Update(ctx, next)
		if err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.audit, workspaceID, "agent.update", "agent", id, fmt.Sprintf("changed agent %q: %s", out.Name, changed))
	})
	return out, err
}

// lockAgent reads an agent for a write in ctx's transaction. Every write of
// an agent's version (a patch, a bind or unbind, its deletion, a sandbox's
// deletion detaching it) holds its lock, so none reads a version another is
// replacing; expect, when set, must be that version.
func (s *Service) lockAgent(ctx context.Context, workspaceID, id string, expect auxilia.Expect) (auxilia.Agent, error) {
	if err := s.tx.Lock(ctx, "agent:"+id); err != nil {
		return auxilia.Agent{}, err
	}
	a, err := s.agents(workspaceID).Get(ctx, id)
	if err != nil {
		return auxilia.Agent{}, err
	}
	if err := expect.Check("agent", a.Version); err != nil {
		return auxilia.Agent{}, err
	}
	return a, nil
}

// Delete removes an agent with its binding and threads; its threads'
// instances are released for the reaper to destroy.
func (s *Service) Delete(ctx context.Context, workspaceID, id string, expect auxilia.Expect) error {
	return s.tx.InTx(ctx, func(ctx context.Context) error {
		a, err := s.lockAgent(ctx, workspaceID, id, expect)
		if err != nil {
			return err
		}
		released, err := s.instances(workspaceID).ReleaseForAgent(ctx, id)
		if err != nil {
			return err
		}
		if err := s.agents(workspaceID).Delete(ctx, id, a.Version); err != nil {
			return err
		}
		return auxilia.Audit(ctx, s.audit, workspaceID, "agent.delete", "agent", id,
			fmt.Sprintf("deleted agent %q; released %d instance(s)", a.Name, released))
	})
}
