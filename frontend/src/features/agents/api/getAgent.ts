import { useQuery } from "@tanstack/react-query";
import { api, unwrapWithETag } from "../../../api/client";
import type { Agent } from "../../../api/types";
import { agentKeys } from "./keys";

export interface VersionedAgent {
  agent: Agent;
  etag: string | null;
}

/** GET /api/v1/agents/{id}, with its ETag. */
export async function getAgent(id: string): Promise<VersionedAgent> {
  const { data, etag } = await unwrapWithETag(api.GET("/api/v1/agents/{id}", { params: { path: { id } } }));
  return { agent: data, etag };
}

export function useAgent(id: string | undefined) {
  return useQuery({ queryKey: agentKeys.detail(id ?? ""), queryFn: () => getAgent(id!), enabled: id !== undefined, staleTime: 0 });
}
