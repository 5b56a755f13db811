import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { Run } from "./types";

/** How often an active run on screen is read again. */
const activeRunRereadMs = 15_000;

/** GET /api/v1/runs/{run_id}. */
export function getRun(runId: string): Promise<Run> {
  return unwrap(api.GET("/api/v1/runs/{run_id}", { params: { path: { run_id: runId } } }));
}

/**
 * The run a console shows, read from the server: a reload keeps it. A run
 * just started or ended is put in the cache as the server answered, and
 * not read again at once. An active run is read again now and then, so a
 * console left open learns that it ended (its sandbox deleted, expired).
 */
export function useRun(runId: string | undefined) {
  return useQuery({
    queryKey: runKeys.run(runId ?? ""),
    queryFn: () => getRun(runId!),
    enabled: runId !== undefined,
    staleTime: 10_000,
    refetchInterval: (query) => (query.state.data?.status === "active" ? activeRunRereadMs : false),
  });
}
