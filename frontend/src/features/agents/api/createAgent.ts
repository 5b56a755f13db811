import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrapWithETag } from "../../../api/client";
import type { AgentCreate } from "../../../api/types";
import type { VersionedAgent } from "./getAgent";
import { agentKeys } from "./keys";

/** POST /api/v1/agents. */
export async function createAgent(body: AgentCreate): Promise<VersionedAgent> {
  const { data, etag } = await unwrapWithETag(api.POST("/api/v1/agents", { body }));
  return { agent: data, etag };
}

export function useCreateAgent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createAgent,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: agentKeys.list() }),
  });
}
