import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { approvalHeader } from "./approval";
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

/**
 * Lists a folder once with a person's approval, and shows that listing in
 * place of the refused one. The approval is for this one call: a later
 * refresh asks again.
 */
export function useApprovedListing(runId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (path: string) => listDirectory(runId, path, true),
    onSuccess: (entries, path) => queryClient.setQueryData(runKeys.directory(runId, path), entries),
  });
}
