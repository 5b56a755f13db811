import type { AgentPatch } from "../../api/types";
import type { VersionedAgent } from "./api/getAgent";
import { draftBindingOf, sameBinding, type DraftBinding } from "./tools";

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

/**
 * What a save has written so far: the agent's new version and, once its
 * binding is written too, that binding (null when it was removed).
 */
export interface SaveStep {
  saved: VersionedAgent;
  binding?: DraftBinding | null;
}

/** The baseline after a save step: what a retry of the save compares the draft with. */
export function baselineAfter(previous: AgentDraft, step: SaveStep): AgentDraft {
  return { ...agentDraftOf(step.saved), binding: step.binding === undefined ? previous.binding : step.binding };
}

/**
 * The draft rebased on a fresh read of the agent: each field the person
 * edited keeps their edit, each they left alone takes the agent's value now.
 */
export function rebaseDraft(draft: AgentDraft, oldBaseline: AgentDraft, fresh: AgentDraft): AgentDraft {
  const rebased = { ...draft };
  for (const key of identityKeys) if (draft[key].trim() === oldBaseline[key]) rebased[key] = fresh[key];
  if (sameBinding(draft.binding, oldBaseline.binding)) rebased.binding = fresh.binding;
  return rebased;
}
