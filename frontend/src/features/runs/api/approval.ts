import { type QueryKey, useMutation, useQueryClient } from "@tanstack/react-query";
import { isApiError } from "../../../api/problem";

/**
 * The header that tells the server a person approved this tool call, for a
 * tool whose policy is "needs approval" (otherwise it answers 428).
 */
export function approvalHeader(approved: boolean | undefined): { "Auxilia-Approval"?: "granted" } {
  return approved ? { "Auxilia-Approval": "granted" } : {};
}

/**
 * The server refused a call because its tool needs a person's approval,
 * and this token's word, given with the call, would grant it. Where the
 * agent's approval rule does not let it (grant_with_call: false), the
 * refusal's own words say who approves, and where: the console offers no
 * approval of its own.
 */
export function needsApproval(error: unknown): boolean {
  return isApiError(error, "approval_required") && error.problem.grant_with_call !== false;
}

/**
 * Makes one call with a person's approval and shows its answer in place of
 * the refused query (keyOf(path)). The approval is for this one call: a
 * later refresh asks again.
 */
export function useApprovedOnce<T>(callApproved: (path: string) => Promise<T>, keyOf: (path: string) => QueryKey) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: callApproved,
    onSuccess: (answer, path) => queryClient.setQueryData(keyOf(path), answer),
  });
}
