import { api, unwrapWithETag } from "../../../api/client";

export interface DeleteBindingRequest {
  agentId: string;
  /** The agent's ETag last read, sent as If-Match. */
  etag: string | null;
}

/**
 * DELETE /api/v1/agents/{id}/sandbox: the agent runs on without code
 * execution; answers with the agent's new ETag.
 */
export async function deleteBinding({ agentId, etag }: DeleteBindingRequest): Promise<string | null> {
  const { etag: next } = await unwrapWithETag(
    api.DELETE("/api/v1/agents/{id}/sandbox", { params: { path: { id: agentId }, header: etag ? { "If-Match": etag } : {} } }),
  );
  return next;
}
