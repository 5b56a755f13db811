import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Run } from "./types";

export interface RecentRunFilters {
  agent_id?: string;
  sandbox_id?: string;
  status?: "active" | "completed" | "expired";
}

/** GET /api/v1/runs: the workspace's runs, newest first, as filtered. */
export async function listRecentRuns(filters: RecentRunFilters): Promise<Run[]> {
  const query = Object.fromEntries(Object.entries(filters).filter(([, v]) => v)) as RecentRunFilters;
  const { items } = await unwrap(api.GET("/api/v1/runs", { params: { query: { ...query, page_size: 25 } } }));
  return items;
}

/** The recent runs, read again every 15 s: a run elsewhere shows up, an idle one turns expired. */
export function useRecentRuns(filters: RecentRunFilters) {
  return useQuery({
    queryKey: ["runs", "recent", filters] as const,
    queryFn: () => listRecentRuns(filters),
    refetchInterval: 15_000,
  });
}
