import { useQuery } from "@tanstack/react-query";
import { api, unwrapWithETag } from "../../../api/client";
import type { Sandbox } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";

export interface VersionedSandbox {
  sandbox: Sandbox;
  /** Sent back as If-Match so an edit cannot overwrite someone else's. */
  etag: string | null;
}

/** GET /api/v1/sandboxes/{id}, with its ETag. */
export async function getSandbox(id: string): Promise<VersionedSandbox> {
  const { data, etag } = await unwrapWithETag(api.GET("/api/v1/sandboxes/{id}", { params: { path: { id } } }));
  return { sandbox: data, etag };
}

export function useSandbox(id: string | undefined) {
  return useQuery({
    queryKey: sandboxKeys.detail(id ?? ""),
    queryFn: () => getSandbox(id!),
    enabled: id !== undefined,
    // The edit dialog must start from the version it will send as If-Match.
    staleTime: 0,
    gcTime: 0,
  });
}
