import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { AgentRef } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";

/** GET /api/v1/sandboxes/{id}/agents: the agents a delete would detach. */
export async function listSandboxAgents(id: string): Promise<AgentRef[]> {
  const { items } = await unwrap(
    api.GET("/api/v1/sandboxes/{id}/agents", { params: { path: { id }, query: { page_size: 200 } } }),
  );
  return items;
}

export function useSandboxAgents(id: string, enabled: boolean) {
  return useQuery({ queryKey: sandboxKeys.agents(id), queryFn: () => listSandboxAgents(id), enabled, staleTime: 0 });
}
