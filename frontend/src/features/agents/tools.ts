import type { Agent } from "../../api/types";

// The sandbox tools and their policies, from the binding contract in API.md.
// The spec types a binding's `tools` as a free map of strings, so neither
// list can come from the generated types or an endpoint.
export const sandboxToolNames = ["execute", "ls", "read_file", "write_file", "edit_file", "glob", "grep"] as const;

export const toolPolicies = [
  { value: "always_allow", label: "Always allow" },
  { value: "needs_approval", label: "Needs approval" },
  { value: "disabled", label: "Disabled" },
] as const;

export type ToolPolicies = Record<string, string>;

/** What a binding made without a tools map gets: every tool always allowed. */
export function defaultToolPolicies(): ToolPolicies {
  return Object.fromEntries(sandboxToolNames.map((name) => [name, "always_allow"]));
}

/** The tools in a stable order: the known ones first, then any the server adds. */
export function orderedTools(tools: ToolPolicies): string[] {
  const known = sandboxToolNames.filter((name) => name in tools);
  const extra = Object.keys(tools).filter((name) => !(sandboxToolNames as readonly string[]).includes(name));
  return [...known, ...extra.sort()];
}

/** An agent's sandbox as the editor holds it until Save changes. */
export interface DraftBinding {
  sandboxId: string;
  name: string;
  provider: string;
  url: string;
  tools: ToolPolicies;
}

export function draftBindingOf(agent: Agent): DraftBinding | null {
  const b = agent.sandbox;
  return b ? { sandboxId: b.sandbox_id, name: b.name, provider: b.provider, url: b.url, tools: { ...b.tools } } : null;
}

export function sameBinding(a: DraftBinding | null, b: DraftBinding | null): boolean {
  if (a === null || b === null) return a === b;
  return a.sandboxId === b.sandboxId && JSON.stringify(a.tools) === JSON.stringify(b.tools);
}
