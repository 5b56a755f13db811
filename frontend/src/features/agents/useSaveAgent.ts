import { useQueryClient } from "@tanstack/react-query";
import { identityPatch, type AgentDraft } from "./agentDraft";
import { useCreateAgent } from "./api/createAgent";
import { useDeleteBinding } from "./api/deleteBinding";
import { getAgent, type VersionedAgent } from "./api/getAgent";
import { agentKeys } from "./api/keys";
import { usePatchAgent } from "./api/patchAgent";
import { usePutBinding } from "./api/putBinding";
import { sameBinding } from "./tools";

export interface SaveAgentInput {
  /** The agent as last saved; none for a new one. */
  base: VersionedAgent | undefined;
  baseline: AgentDraft;
  draft: AgentDraft;
  /**
   * Called as soon as the agent is created or patched, before its binding is
   * saved: a failed bind is then retried as an edit of that version.
   */
  onAgentSaved: (saved: VersionedAgent) => void;
}

/**
 * "Save changes": creates or patches the agent, then puts or removes its
 * sandbox binding, each guarded by If-Match, and answers with the agent as
 * now saved.
 */
export function useSaveAgent() {
  const queryClient = useQueryClient();
  const create = useCreateAgent();
  const patch = usePatchAgent();
  const put = usePutBinding();
  const unbind = useDeleteBinding();

  const save = async ({ base, baseline, draft, onAgentSaved }: SaveAgentInput): Promise<VersionedAgent> => {
    let current = base;
    if (!current) {
      current = await create.mutateAsync({
        name: draft.name.trim(),
        description: draft.description.trim(),
        emoji: draft.emoji.trim(),
        ...(draft.color.trim() ? { color: draft.color.trim() } : {}),
      });
      onAgentSaved(current);
    } else {
      const changes = identityPatch(baseline, draft);
      if (Object.keys(changes).length > 0) {
        current = await patch.mutateAsync({ id: current.agent.id, patch: changes, etag: current.etag });
        onAgentSaved(current);
      }
    }
    const id = current.agent.id;
    if (!sameBinding(draft.binding, baseline.binding)) {
      // Guarded by the agent's version: a binding changed by someone else since is not overwritten.
      if (draft.binding) {
        await put.mutateAsync({
          agentId: id,
          body: { sandbox_id: draft.binding.sandboxId, tools: draft.binding.tools },
          etag: current.etag,
        });
      } else {
        await unbind.mutateAsync({ agentId: id, etag: current.etag });
      }
    }
    void queryClient.invalidateQueries({ queryKey: agentKeys.list() });
    const fresh = await getAgent(id);
    queryClient.setQueryData(agentKeys.detail(id), fresh);
    return fresh;
  };

  return { save, saving: create.isPending || patch.isPending || put.isPending || unbind.isPending };
}
