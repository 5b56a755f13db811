import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { approvalHeader, useApprovedOnce } from "./approval";
import { runKeys } from "./keys";
import type { DirectoryEntry } from "./types";

/**
 * GET /api/v1/runs/{run_id}/ls: one folder of the run's sandbox ("" is the
 * working directory); approved when a person has approved listing it.
 */
export async function listDirectory(runId: string, path: string, approved = false): Promise<DirectoryEntry[]> {
  const { entries } = await unwrap(
    api.GET("/api/v1/runs/{run_id}/ls", {
      params: { path: { run_id: runId }, query: path ? { path } : {}, header: approvalHeader(approved) },
    }),
  );
  return entries;
}

export function useDirectory(runId: string, path: string) {
  return useQuery({ queryKey: runKeys.directory(runId, path), queryFn: () => listDirectory(runId, path), staleTime: 0 });
}

/** Lists a folder once with a person's approval, shown in place of the refused listing. */
export function useApprovedListing(runId: string) {
  return useApprovedOnce(
    (path) => listDirectory(runId, path, true),
    (path) => runKeys.directory(runId, path),
  );
}
