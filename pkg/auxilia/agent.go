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
	// ManagedBy names the tool that manages the agent (such as
	// auxilia-apply); "" when none does. Set when the agent is made.
	ManagedBy string
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

// Grantor says who may grant the approval a tool call needs.
type Grantor string

// Grantors. An identity is a token today; once people sign in it is a
// person, and "someone else" means another person.
const (
	// GrantedByAnyone lets any token of the workspace grant, the one that
	// made the call included.
	GrantedByAnyone Grantor = "anyone"
	// GrantedBySomeoneElse lets any token grant but the one that made the call.
	GrantedBySomeoneElse Grantor = "someone_else"
	// GrantedByAdmin lets only admin tokens grant, the caller's own included.
	GrantedByAdmin Grantor = "admin"
)

// Grantors are the grantors, in the order the API lists them.
var Grantors = []Grantor{GrantedByAnyone, GrantedBySomeoneElse, GrantedByAdmin}

// Valid reports whether g is a known grantor.
func (g Grantor) Valid() bool {
	return g == GrantedByAnyone || g == GrantedBySomeoneElse || g == GrantedByAdmin
}

// ApprovalRule says who may grant the approvals a binding's tools need, and
// whether a grant may come with the call itself.
type ApprovalRule struct {
	GrantedBy Grantor
	// WithCall lets the caller's own word grant its call: the
	// Auxilia-Approval header, or the answer its MCP client's person gave.
	// It counts only from a caller GrantedBy lets grant; otherwise, and
	// when WithCall is false, a grant is a decision in the console.
	WithCall bool
}

// DefaultApprovalRule is a binding's rule unless it says otherwise: anyone
// grants, with the call or in the console.
var DefaultApprovalRule = ApprovalRule{GrantedBy: GrantedByAnyone, WithCall: true}

// Guarded reports whether the rule asks more than the default: the token
// that makes the calls must not be able to undo it, so only an admin sets
// it, or changes or removes a binding that has it.
func (r ApprovalRule) Guarded() bool { return r != DefaultApprovalRule }

// Binding gives an agent a sandbox, with a policy per tool.
type Binding struct {
	AgentID   string
	SandboxID string
	// The sandbox as the agent resource shows it.
	SandboxName string
	Provider    string
	URL         string
	Tools       map[string]ToolPolicy // every tool, always
	// Approval says who may grant the approvals its tools need.
	Approval ApprovalRule
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
