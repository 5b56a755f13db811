package store

import (
	"context"

	"github.com/auxilia/sandboxes/pkg/auxilia"
)

// TenantAgents are the agents of the handle's workspace.
type TenantAgents struct{ t Tenant }

// Agents returns the workspace's agents.
func (t Tenant) Agents() TenantAgents { return TenantAgents{t} }

// Create stores a new agent in the workspace (a's workspace is ignored).
func (s TenantAgents) Create(ctx context.Context, a auxilia.Agent) (auxilia.Agent, error) {
	a.WorkspaceID = s.t.ws
	return s.t.db.agents().Create(ctx, a)
}

// Get returns an agent of the workspace with its binding.
func (s TenantAgents) Get(ctx context.Context, id string) (auxilia.Agent, error) {
	return s.t.db.agents().Get(ctx, s.t.ws, id)
}

// List returns a page of the workspace's agents with their bindings.
func (s TenantAgents) List(ctx context.Context, req auxilia.PageRequest) (auxilia.Page[auxilia.Agent], error) {
	return s.t.db.agents().List(ctx, s.t.ws, req)
}

// Update saves an agent's spec if its stored version is still a.Version
// (a's workspace is ignored).
func (s TenantAgents) Update(ctx context.Context, a auxilia.Agent) (auxilia.Agent, error) {
	a.WorkspaceID = s.t.ws
	return s.t.db.agents().Update(ctx, a)
}

// Delete removes an agent, its binding and its threads, if it is still at
// the version the caller read.
func (s TenantAgents) Delete(ctx context.Context, id string, version int) error {
	return s.t.db.agents().Delete(ctx, s.t.ws, id, version)
}

// TenantBindings are the bindings of the workspace's agents, reached by
// the ids of agents and sandboxes the caller found in the workspace.
type TenantBindings struct{ t Tenant }

// Bindings returns the workspace's bindings.
func (t Tenant) Bindings() TenantBindings { return TenantBindings{t} }

// Put binds an agent to a sandbox with its tool policies.
func (s TenantBindings) Put(ctx context.Context, agentID, sandboxID string, tools map[string]auxilia.ToolPolicy, approval auxilia.ApprovalRule) error {
	return s.t.db.bindings().Put(ctx, agentID, sandboxID, tools, approval)
}

// Get returns an agent's binding.
func (s TenantBindings) Get(ctx context.Context, agentID string) (auxilia.Binding, error) {
	return s.t.db.bindings().Get(ctx, agentID)
}

// Delete removes an agent's binding.
func (s TenantBindings) Delete(ctx context.Context, agentID string) error {
	return s.t.db.bindings().Delete(ctx, agentID)
}

// AgentIDsOf lists the agents bound to a sandbox.
func (s TenantBindings) AgentIDsOf(ctx context.Context, sandboxID string) ([]string, error) {
	return s.t.db.bindings().AgentIDsOf(ctx, sandboxID)
}

// DeleteForSandbox detaches every agent from a sandbox.
func (s TenantBindings) DeleteForSandbox(ctx context.Context, sandboxID string) (int64, error) {
	return s.t.db.bindings().DeleteForSandbox(ctx, sandboxID)
}

// AgentsOf returns a page of the agents bound to a sandbox.
func (s TenantBindings) AgentsOf(ctx context.Context, sandboxID string, req auxilia.PageRequest) (auxilia.Page[auxilia.AgentRef], error) {
	return s.t.db.bindings().AgentsOf(ctx, sandboxID, req)
}
