import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { agentKeys } from "../../../api/keys";
import { useToast } from "../../../ui/Toasts";

/** DELETE /api/v1/agents/{id}. */
export async function deleteAgent(id: string): Promise<void> {
  await unwrap(api.DELETE("/api/v1/agents/{id}", { params: { path: { id } } }));
}

export function useDeleteAgent() {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: deleteAgent,
    onSuccess: () => {
      notify("Agent deleted.");
      return queryClient.invalidateQueries({ queryKey: agentKeys.all });
    },
  });
}
