import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";
import type { DirectoryEntry } from "./types";

/** GET /api/v1/runs/{run_id}/ls: one folder of the run's sandbox ("" is the working directory). */
export async function listDirectory(runId: string, path: string): Promise<DirectoryEntry[]> {
  const { entries } = await unwrap(
    api.GET("/api/v1/runs/{run_id}/ls", { params: { path: { run_id: runId }, query: path ? { path } : {} } }),
  );
  return entries;
}

export function useDirectory(runId: string, path: string) {
  return useQuery({ queryKey: runKeys.directory(runId, path), queryFn: () => listDirectory(runId, path), staleTime: 0 });
}
