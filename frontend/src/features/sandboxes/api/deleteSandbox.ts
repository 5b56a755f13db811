import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { sandboxKeys } from "../../../api/keys";
import { useToast } from "../../../ui/Toasts";

export interface SandboxDeleteRequest {
  id: string;
  /** Unbind the agents that use it, in the same transaction. */
  detachAgents: boolean;
}

/** DELETE /api/v1/sandboxes/{id}[?detach_agents=true]. */
export async function deleteSandbox({ id, detachAgents }: SandboxDeleteRequest): Promise<void> {
  await unwrap(
    api.DELETE("/api/v1/sandboxes/{id}", {
      params: { path: { id }, query: detachAgents ? { detach_agents: true } : {} },
    }),
  );
}

export function useDeleteSandbox() {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: deleteSandbox,
    onSuccess: () => {
      notify("Sandbox deleted.");
      void queryClient.invalidateQueries({ queryKey: sandboxKeys.all });
      // Detached agents changed too.
      void queryClient.invalidateQueries({ queryKey: ["agents"] });
    },
  });
}
