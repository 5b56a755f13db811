import type { AgentPatch } from "../../api/types";
import type { VersionedAgent } from "./api/getAgent";
import { draftBindingOf, type DraftBinding } from "./tools";

/** The agent editor's form, as typed so far. */
export interface AgentDraft {
  name: string;
  description: string;
  emoji: string;
  color: string;
  binding: DraftBinding | null;
}

export const identityKeys = ["name", "description", "emoji", "color"] as const;

export function agentDraftOf(saved: VersionedAgent | undefined): AgentDraft {
  const a = saved?.agent;
  return {
    name: a?.name ?? "",
    description: a?.description ?? "",
    emoji: a?.emoji ?? "",
    color: a?.color ?? "",
    binding: a ? draftBindingOf(a) : null,
  };
}

/** The merge patch of the agent's own fields (not its sandbox). */
export function identityPatch(baseline: AgentDraft, draft: AgentDraft): AgentPatch {
  const patch: AgentPatch = {};
  for (const key of identityKeys) if (draft[key].trim() !== baseline[key]) patch[key] = draft[key].trim();
  return patch;
}
