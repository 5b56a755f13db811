import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Binding, BindingPut } from "../../../api/types";

export interface PutBindingRequest {
  agentId: string;
  body: BindingPut;
  /** The agent's ETag last read: a binding is part of its agent, so it is guarded by If-Match. */
  etag: string | null;
}

/** PUT /api/v1/agents/{id}/sandbox: binds a sandbox, replacing any earlier one. */
export function putBinding({ agentId, body, etag }: PutBindingRequest): Promise<Binding> {
  return unwrap(
    api.PUT("/api/v1/agents/{id}/sandbox", { params: { path: { id: agentId }, header: etag ? { "If-Match": etag } : {} }, body }),
  );
}

export function usePutBinding() {
  return useMutation({ mutationFn: putBinding });
}
