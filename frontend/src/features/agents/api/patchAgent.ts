import { api, unwrapWithETag } from "../../../api/client";
import type { AgentPatch } from "../../../api/types";
import type { VersionedAgent } from "./getAgent";

export interface AgentPatchRequest {
  id: string;
  patch: AgentPatch;
  etag: string | null;
}

/** PATCH /api/v1/agents/{id}: a merge patch, guarded by If-Match. */
export async function patchAgent({ id, patch, etag }: AgentPatchRequest): Promise<VersionedAgent> {
  const { data, etag: next } = await unwrapWithETag(
    api.PATCH("/api/v1/agents/{id}", {
      params: { path: { id }, header: etag ? { "If-Match": etag } : {} },
      body: patch,
      headers: { "Content-Type": "application/merge-patch+json" },
    }),
  );
  return { agent: data, etag: next };
}
