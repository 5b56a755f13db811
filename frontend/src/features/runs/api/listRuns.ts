import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { Run } from "./types";

/** GET /api/v1/agents/{id}/threads/{thread_id}/runs: the thread's runs (its first 200). */
export async function listRuns(agentId: string, threadId: string): Promise<Run[]> {
  const page = await unwrap(
    api.GET("/api/v1/agents/{id}/threads/{thread_id}/runs", {
      params: { path: { id: agentId, thread_id: threadId }, query: { page_size: 200 } },
    }),
  );
  return [...page.items].sort((a, b) => b.started_at.localeCompare(a.started_at));
}

export function useRuns(agentId: string, threadId: string) {
  return useQuery({ queryKey: runKeys.runs(agentId, threadId), queryFn: () => listRuns(agentId, threadId) });
}
