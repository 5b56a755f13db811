import { useMutation, useQueryClient } from "@tanstack/react-query";
import { identityPatch, type AgentDraft, type SaveStep } from "./agentDraft";
import { createAgent } from "./api/createAgent";
import { deleteBinding } from "./api/deleteBinding";
import { agentQuery, type VersionedAgent } from "./api/getAgent";
import { agentKeys } from "../../api/keys";
import { patchAgent } from "./api/patchAgent";
import { putBinding } from "./api/putBinding";
import { sameBinding } from "./tools";
import { useToast } from "../../ui/Toasts";

export interface SaveAgentInput {
  /** The agent as last saved; none for a new one. */
  base: VersionedAgent | undefined;
  baseline: AgentDraft;
  draft: AgentDraft;
  /**
   * Called after each write that succeeds, with what is saved so far: when
   * a later write fails, the retry starts from there, as an edit of the
   * version that write made.
   */
  onSaved: (step: SaveStep) => void;
}

/**
 * "Save changes": creates or patches the agent, then puts or removes its
 * sandbox binding, each guarded by If-Match with the version the one before
 * made, and answers with the agent as now saved.
 */
export function useSaveAgent() {
  const queryClient = useQueryClient();
  const notify = useToast();

  const save = async ({ base, baseline, draft, onSaved }: SaveAgentInput): Promise<VersionedAgent> => {
    let current = base;
    let wrote = false;
    const saved = (step: SaveStep) => {
      current = step.saved;
      wrote = true;
      onSaved(step);
    };
    try {
      if (!current) {
        saved({
          saved: await createAgent({
            name: draft.name.trim(),
            description: draft.description.trim(),
            emoji: draft.emoji.trim(),
            ...(draft.color.trim() ? { color: draft.color.trim() } : {}),
          }),
        });
      } else {
        const changes = identityPatch(baseline, draft);
        if (Object.keys(changes).length > 0) {
          saved({ saved: await patchAgent({ id: current.agent.id, patch: changes, etag: current.etag }) });
        }
      }
      const { agent, etag } = current!;
      if (!sameBinding(draft.binding, baseline.binding)) {
        // Guarded by the agent's version: a binding changed by someone else since is not overwritten.
        let next: string | null;
        if (draft.binding) {
          const body = { sandbox_id: draft.binding.sandboxId, tools: draft.binding.tools, approval: draft.binding.approval };
          ({ etag: next } = await putBinding({ agentId: agent.id, body, etag }));
        } else {
          next = await deleteBinding({ agentId: agent.id, etag });
        }
        // Without a new ETag the old one stays: a later write then fails
        // with 412 rather than going out unguarded.
        saved({ saved: { agent, etag: next ?? etag }, binding: draft.binding });
      }
      return await queryClient.fetchQuery(agentQuery(agent.id));
    } catch (error) {
      // What was written is not what the cache holds: read it again when next
      // shown, not now, under the editor that holds the person's edits.
      if (wrote) void queryClient.invalidateQueries({ queryKey: agentKeys.detail(current!.agent.id), refetchType: "none" });
      throw error;
    } finally {
      if (wrote) void queryClient.invalidateQueries({ queryKey: agentKeys.list() });
    }
  };

  const saving = useMutation({
    mutationFn: save,
    onSuccess: ({ agent }, { base }) => notify(base ? `Saved ${agent.name}.` : `Created agent ${agent.name}.`),
  });
  return { save: saving.mutateAsync, saving: saving.isPending };
}
