import type { components } from "./schema.gen";

type Schemas = components["schemas"];

export type Sandbox = Schemas["Sandbox"];
export type SandboxCreate = Schemas["SandboxCreate"];
export type SandboxPatch = Schemas["SandboxPatch"];
export type SandboxHealth = Schemas["SandboxHealth"];
export type SandboxPool = Schemas["SandboxPool"];
export type ProbeRecord = Schemas["ProbeRecord"];
export type SandboxInstance = Schemas["SandboxInstance"];
export type ProbeResult = Schemas["ProbeResult"];
export type SecretHint = Schemas["SecretHint"];
export type Provider = Schemas["ProviderInfo"];
export type ProviderName = Schemas["Provider"];
export type ProviderField = Schemas["ProviderField"];
export type Agent = Schemas["Agent"];
export type AgentCreate = Schemas["AgentCreate"];
export type AgentPatch = Schemas["AgentPatch"];
export type AgentRef = Schemas["AgentRef"];
export type Binding = Schemas["Binding"];
export type BindingPut = Schemas["BindingPut"];
export type Tool = Schemas["Tool"];
export type Token = Schemas["Token"];
export type CreatedToken = Schemas["CreatedToken"];
export type TokenCreate = Schemas["TokenCreate"];
export type Me = Schemas["Me"];
export type WorkspaceDetail = Schemas["WorkspaceDetail"];
export type Quota = Schemas["Quota"];
export type CostBudget = Schemas["CostBudget"];
export type FieldError = Schemas["FieldError"];

/**
 * Members that some problems carry beyond the documented ones; the spec's
 * Problem schema does not list them, so they are typed here from API.md.
 */
export interface ProblemExtras {
  /** sandbox_in_use: the agents bound to the sandbox. */
  agents?: AgentRef[];
  /** conflict on create: the resource that already has the name. */
  existing_id?: string;
  /** sandbox_unavailable: which sandbox failed its probe. */
  sandbox_id?: string;
  sandbox_name?: string;
  /** sandbox_unavailable: network, auth, config, quota or provider. */
  probe_reason?: string;
}

export type Problem = Schemas["Problem"] & ProblemExtras;
