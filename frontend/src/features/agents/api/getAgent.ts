import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, unwrapWithETag } from "../../../api/client";
import type { Agent } from "../../../api/types";
import { agentKeys } from "../../../api/keys";

export interface VersionedAgent {
  agent: Agent;
  etag: string | null;
}

/** GET /api/v1/agents/{id}, with its ETag. */
export async function getAgent(id: string): Promise<VersionedAgent> {
  const { data, etag } = await unwrapWithETag(api.GET("/api/v1/agents/{id}", { params: { path: { id } } }));
  return { agent: data, etag };
}

/** The agent's query: shown by useAgent, and read afresh into the cache with queryClient.fetchQuery. */
export function agentQuery(id: string) {
  return queryOptions({ queryKey: agentKeys.detail(id), queryFn: () => getAgent(id), staleTime: 0 });
}

export function useAgent(id: string | undefined) {
  return useQuery({ ...agentQuery(id ?? ""), enabled: id !== undefined });
}
