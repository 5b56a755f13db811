import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { components } from "../../../api/schema.gen";

export type Approval = components["schemas"]["Approval"];

/** How often the console looks for calls waiting for a person (an MCP client's among them). */
export const approvalsPollMs = 2000;

const approvalsKey = (runId: string) => ["runs", runId, "approvals"] as const;

/** GET /api/v1/runs/{run_id}/approvals: the thread's calls that wait for, or got, a person's decision. */
export function listApprovals(runId: string): Promise<Approval[]> {
  return unwrap(api.GET("/api/v1/runs/{run_id}/approvals", { params: { path: { run_id: runId } } })).then((l) => l.items);
}

export function useApprovals(runId: string) {
  return useQuery({
    queryKey: approvalsKey(runId),
    queryFn: () => listApprovals(runId),
    refetchInterval: approvalsPollMs,
  });
}

export interface Decision {
  runId: string;
  approvalId: string;
  decision: "approve" | "deny";
}

/** POST …/approvals/{approval_id}/decision: a person approves or denies one call. */
export function decide({ runId, approvalId, decision }: Decision): Promise<Approval> {
  return unwrap(
    api.POST("/api/v1/runs/{run_id}/approvals/{approval_id}/decision", {
      params: { path: { run_id: runId, approval_id: approvalId } },
      body: { decision },
    }),
  );
}

export function useDecide() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: decide,
    onSuccess: (decided, { runId }) => {
      queryClient.setQueryData<Approval[]>(approvalsKey(runId), (list) =>
        list?.map((a) => (a.id === decided.id ? decided : a)),
      );
      void queryClient.invalidateQueries({ queryKey: approvalsKey(runId) });
    },
  });
}
