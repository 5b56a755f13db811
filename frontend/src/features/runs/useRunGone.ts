import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import { isApiError } from "../../api/problem";
import { runKeys } from "./api/keys";

/**
 * Learns that the run `runId` can no longer be used from any of its calls
 * that the server answered with 409 run_not_active (a file listing, a
 * command, an upload…): it keeps the server's words and reads the run
 * again, whose status then says how it ended. `report` is for calls made
 * outside the query cache (a command's stream).
 */
export function useRunGone(runId: string | undefined) {
  const queryClient = useQueryClient();
  const [gone, setGone] = useState<{ runId: string; detail: string } | null>(null);

  const report = useCallback(
    (error: unknown) => {
      if (!runId || !isApiError(error, "run_not_active")) return;
      setGone((g) => (g?.runId === runId ? g : { runId, detail: error.problem.detail || error.message }));
      void queryClient.invalidateQueries({ queryKey: runKeys.run(runId), exact: true });
    },
    [queryClient, runId],
  );

  useEffect(() => {
    if (!runId) return;
    const ofRun = (key: readonly unknown[] | undefined) => key?.[0] === "runs" && key[1] === runId;
    const unQueries = queryClient.getQueryCache().subscribe((event) => {
      if (event.type === "updated" && event.action.type === "error" && ofRun(event.query.queryKey)) report(event.action.error);
    });
    const unMutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === "updated" && event.action.type === "error") report(event.action.error);
    });
    return () => {
      unQueries();
      unMutations();
    };
  }, [queryClient, runId, report]);

  return { gone: gone && gone.runId === runId ? gone.detail : null, report };
}
