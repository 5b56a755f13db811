import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import { workspaceKeys } from "./keys";
import type { WorkspaceDetail } from "./types";

/** GET /api/v1/workspace: the caller's workspace with its quotas and their use. */
export function fetchWorkspace(): Promise<WorkspaceDetail> {
  return unwrap(api.GET("/api/v1/workspace"));
}

/** The workspace, asked again every minute: its quotas' use changes as threads run. */
export function useWorkspace() {
  return useQuery({ queryKey: workspaceKeys.detail, queryFn: fetchWorkspace, refetchInterval: 60_000 });
}
