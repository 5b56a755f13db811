import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { Thread } from "./types";

/**
 * GET /api/v1/agents/{id}/threads, newest run first. The API pages threads
 * in creation order and cannot sort by last run, so the first (largest) page
 * is sorted here.
 */
export async function listThreads(agentId: string): Promise<Thread[]> {
  const page = await unwrap(
    api.GET("/api/v1/agents/{id}/threads", { params: { path: { id: agentId }, query: { page_size: 200 } } }),
  );
  return [...page.items].sort((a, b) => (b.last_run_at ?? "").localeCompare(a.last_run_at ?? ""));
}

export function useThreads(agentId: string | undefined) {
  return useQuery({
    queryKey: runKeys.threads(agentId ?? ""),
    queryFn: () => listThreads(agentId!),
    enabled: agentId !== undefined && agentId !== "",
  });
}
