import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { approvalHeader, useApprovedOnce } from "./approval";
import { runKeys } from "./keys";
import type { FileContent } from "./types";

/** Lines read at once; a longer file says how many it has. */
export const fileLineLimit = 2000;

/** GET /api/v1/runs/{run_id}/files: a file's text, from its first line. */
export function readFile(runId: string, path: string, approved = false): Promise<FileContent> {
  return unwrap(
    api.GET("/api/v1/runs/{run_id}/files", {
      params: { path: { run_id: runId }, query: { path, offset: 0, limit: fileLineLimit }, header: approvalHeader(approved) },
    }),
  );
}

/** Reads a file once with a person's approval, shown in place of the refused read. */
export function useApprovedRead(runId: string) {
  return useApprovedOnce(
    (path) => readFile(runId, path, true),
    (path) => runKeys.file(runId, path),
  );
}

export function useFileContent(runId: string, path: string | null) {
  return useQuery({
    queryKey: runKeys.file(runId, path ?? ""),
    queryFn: () => readFile(runId, path!),
    enabled: path !== null,
    staleTime: 0,
  });
}
