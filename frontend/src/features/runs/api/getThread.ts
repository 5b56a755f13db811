import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { Thread } from "./types";

/** GET /api/v1/agents/{id}/threads/{thread_id}: the thread's instance, its state, what is kept. */
export function getThread(agentId: string, threadId: string): Promise<Thread> {
  return unwrap(
    api.GET("/api/v1/agents/{id}/threads/{thread_id}", { params: { path: { id: agentId, thread_id: threadId } } }),
  );
}

/** The thread as it is after the run `runId` started: read again for each run. */
export function useThread(agentId: string, threadId: string, runId: string) {
  return useQuery({
    queryKey: runKeys.thread(agentId, threadId, runId),
    queryFn: () => getThread(agentId, threadId),
  });
}
