import type { Agent, Binding, Tool } from "../../api/types";

// The policies a binding gives its tools. The tools themselves, their
// descriptions and default policies come from GET /api/v1/tools.
export const toolPolicies = [
  { value: "always_allow", label: "Always allow" },
  { value: "needs_approval", label: "Needs approval" },
  { value: "disabled", label: "Disabled" },
] as const;

export type ToolPolicies = Record<string, string>;

/** Who may approve the calls a binding's tools make wait, and whether an approval sent with the call counts. */
export type ApprovalRule = Binding["approval"];

/** A binding's approval rule unless an admin sets another: anyone approves, with the call or in the console. */
export const defaultApprovalRule: ApprovalRule = { granted_by: "anyone", with_call: true };

export const grantors: { value: ApprovalRule["granted_by"]; label: string }[] = [
  { value: "anyone", label: "Anyone in the workspace" },
  { value: "someone_else", label: "Someone other than whoever made the call" },
  { value: "admin", label: "An admin" },
];

/** A rule other than the default: only an admin sets it, or changes or removes a binding that has it. */
export function isGuarded(rule: ApprovalRule): boolean {
  return rule.granted_by !== defaultApprovalRule.granted_by || rule.with_call !== defaultApprovalRule.with_call;
}

/** What a new binding gives each tool: its default policy. */
export function defaultToolPolicies(catalogue: Tool[]): ToolPolicies {
  return Object.fromEntries(catalogue.map((tool) => [tool.name, tool.default_policy]));
}

/** The binding's tools in a stable order: the catalogue's first, then any it does not list. */
export function orderedTools(tools: ToolPolicies, catalogue: Tool[]): string[] {
  const known: string[] = catalogue.map((tool) => tool.name).filter((name) => name in tools);
  const extra = Object.keys(tools).filter((name) => !known.includes(name));
  return [...known, ...extra.sort()];
}

/**
 * The tools a binding restricts (needs approval, or disabled) while execute
 * is always allowed: the shell can read and write files without them, so
 * those restrictions can be worked around. Empty when nothing is at odds.
 */
export function restrictionsTheShellBypasses(tools: ToolPolicies): string[] {
  if (tools.execute !== "always_allow") return [];
  return Object.keys(tools).filter((name) => name !== "execute" && tools[name] !== "always_allow");
}

/** An agent's sandbox as the editor holds it until Save changes. */
export interface DraftBinding {
  sandboxId: string;
  name: string;
  provider: string;
  url: string;
  tools: ToolPolicies;
  approval: ApprovalRule;
}

export function draftBindingOf(agent: Agent): DraftBinding | null {
  const b = agent.sandbox;
  return b
    ? { sandboxId: b.sandbox_id, name: b.name, provider: b.provider, url: b.url, tools: { ...b.tools }, approval: { ...b.approval } }
    : null;
}

export function sameBinding(a: DraftBinding | null, b: DraftBinding | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.sandboxId === b.sandboxId &&
    JSON.stringify(a.tools) === JSON.stringify(b.tools) &&
    a.approval.granted_by === b.approval.granted_by &&
    a.approval.with_call === b.approval.with_call
  );
}
