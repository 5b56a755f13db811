import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { useToast } from "../../../ui/Toasts";
import { runKeys } from "./keys";
import type { Thread } from "./types";

interface DeleteThreadRequest {
  agentId: string;
  threadId: string;
}

/** DELETE /api/v1/agents/{id}/threads/{thread_id}: the thread goes, and its instance is destroyed. */
export function deleteThread({ agentId, threadId }: DeleteThreadRequest): Promise<void> {
  return unwrap(api.DELETE("/api/v1/agents/{id}/threads/{thread_id}", { params: { path: { id: agentId, thread_id: threadId } } }));
}

export function useDeleteThread() {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: deleteThread,
    onSuccess: (_, { agentId, threadId }) => {
      notify("Thread deleted, and its sandbox instance with it.");
      // The list may not be on screen to be read again at once: it must not show the thread meanwhile.
      queryClient.setQueryData<Thread[]>(runKeys.threads(agentId), (threads) => threads?.filter((t) => t.thread_id !== threadId));
      return queryClient.invalidateQueries({ queryKey: runKeys.threads(agentId) });
    },
  });
}
