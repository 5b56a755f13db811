import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { Run } from "./types";

export interface StartRunRequest {
  agentId: string;
  threadId: string;
}

/** POST /api/v1/agents/{id}/threads/{thread_id}/runs: probes the sandbox, then connects the thread's instance. */
export function startRun({ agentId, threadId }: StartRunRequest): Promise<Run> {
  return unwrap(
    api.POST("/api/v1/agents/{id}/threads/{thread_id}/runs", { params: { path: { id: agentId, thread_id: threadId } } }),
  );
}

export function useStartRun() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: startRun,
    onSuccess: (run) => queryClient.invalidateQueries({ queryKey: runKeys.threads(run.agent_id) }),
  });
}
