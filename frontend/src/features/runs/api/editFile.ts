import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { runKeys } from "./keys";

export interface EditRequest {
  runId: string;
  path: string;
  /** The file's text as it was read, replaced whole: it occurs once. */
  before: string;
  after: string;
}

/** POST /api/v1/runs/{run_id}/edit: replaces the file's text, if it is still what was read. */
export function editFile({ runId, path, before, after }: EditRequest) {
  return unwrap(
    api.POST("/api/v1/runs/{run_id}/edit", {
      params: { path: { run_id: runId } },
      body: { path, old_string: before, new_string: after },
    }),
  );
}

export function useEditFile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: editFile,
    onSuccess: (_, { runId, path }) => queryClient.invalidateQueries({ queryKey: runKeys.file(runId, path) }),
  });
}

export interface Change {
  /** Lines kept before and after the changed block. */
  kept: number;
  removed: string[];
  added: string[];
}

/** The changed block of lines between two texts: what is the same at either end is left out. */
export function changedLines(before: string, after: string): Change {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return { kept: start + end, removed: a.slice(start, a.length - end), added: b.slice(start, b.length - end) };
}
