import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Run } from "./types";

/** POST /api/v1/runs/{run_id}/complete: ends the run (Cloud Run saves its snapshot). */
export function completeRun(runId: string): Promise<Run> {
  return unwrap(api.POST("/api/v1/runs/{run_id}/complete", { params: { path: { run_id: runId } } }));
}

export function useCompleteRun() {
  return useMutation({ mutationFn: completeRun });
}
