package auxilia

import "time"

// Agent is a named agent of a workspace; it runs with at most one sandbox.
type Agent struct {
	ID          string
	WorkspaceID string
	AgentSpec
	Binding   *Binding // nil: the agent runs without code execution
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AgentSpec is what an agent author sets.
type AgentSpec struct {
	Name        string
	Description string
	Emoji       string
	Color       string // #rrggbb
}

// ToolPolicy says whether an agent may call a sandbox tool.
type ToolPolicy string

// Tool policies.
const (
	AlwaysAllow   ToolPolicy = "always_allow"
	NeedsApproval ToolPolicy = "needs_approval"
	Disabled      ToolPolicy = "disabled"
)

// Valid reports whether p is a known policy.
func (p ToolPolicy) Valid() bool { return p == AlwaysAllow || p == NeedsApproval || p == Disabled }

// Binding gives an agent a sandbox, with a policy per tool.
type Binding struct {
	AgentID   string
	SandboxID string
	// The sandbox as the agent resource shows it.
	SandboxName string
	Provider    string
	URL         string
	Tools       map[string]ToolPolicy // every tool, always
	// Version is its agent's: a binding is part of the agent it belongs to.
	Version   int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AgentRef names an agent, as lists of a sandbox's users show it.
type AgentRef struct {
	ID    string
	Name  string
	Emoji string
	Color string
}
