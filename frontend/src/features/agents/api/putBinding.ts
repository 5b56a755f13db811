import { api, unwrapWithETag } from "../../../api/client";
import type { Binding, BindingPut } from "../../../api/types";

export interface PutBindingRequest {
  agentId: string;
  body: BindingPut;
  /** The agent's ETag last read: a binding is part of its agent, so it is guarded by If-Match. */
  etag: string | null;
}

/**
 * PUT /api/v1/agents/{id}/sandbox: binds a sandbox, replacing any earlier
 * one; answers with the binding and the agent's new ETag.
 */
export async function putBinding({ agentId, body, etag }: PutBindingRequest): Promise<{ binding: Binding; etag: string | null }> {
  const { data, etag: next } = await unwrapWithETag(
    api.PUT("/api/v1/agents/{id}/sandbox", { params: { path: { id: agentId }, header: etag ? { "If-Match": etag } : {} }, body }),
  );
  return { binding: data, etag: next };
}
