import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";

export interface DeleteBindingRequest {
  agentId: string;
  /** The agent's ETag last read, sent as If-Match. */
  etag: string | null;
}

/** DELETE /api/v1/agents/{id}/sandbox: the agent runs on without code execution. */
export async function deleteBinding({ agentId, etag }: DeleteBindingRequest): Promise<void> {
  await unwrap(
    api.DELETE("/api/v1/agents/{id}/sandbox", { params: { path: { id: agentId }, header: etag ? { "If-Match": etag } : {} } }),
  );
}

export function useDeleteBinding() {
  return useMutation({ mutationFn: deleteBinding });
}
