import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";

/** DELETE /api/v1/agents/{id}/sandbox: the agent runs on without code execution. */
export async function deleteBinding(agentId: string): Promise<void> {
  await unwrap(api.DELETE("/api/v1/agents/{id}/sandbox", { params: { path: { id: agentId } } }));
}

export function useDeleteBinding() {
  return useMutation({ mutationFn: deleteBinding });
}
