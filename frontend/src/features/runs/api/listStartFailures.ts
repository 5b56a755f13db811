import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { StartFailure } from "./types";

/** GET /api/v1/agents/{id}/threads/{thread_id}/start-failures: the thread's refused starts, oldest first. */
export async function listStartFailures(agentId: string, threadId: string): Promise<StartFailure[]> {
  const page = await unwrap(
    api.GET("/api/v1/agents/{id}/threads/{thread_id}/start-failures", {
      params: { path: { id: agentId, thread_id: threadId }, query: { page_size: 50 } },
    }),
  );
  return page.items;
}

export function useStartFailures(agentId: string, threadId: string) {
  return useQuery({
    queryKey: runKeys.startFailures(agentId, threadId),
    queryFn: () => listStartFailures(agentId, threadId),
  });
}
