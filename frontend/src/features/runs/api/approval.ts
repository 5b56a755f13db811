/**
 * The header that tells the server a person approved this tool call, for a
 * tool whose policy is "needs approval" (otherwise it answers 428).
 */
export function approvalHeader(approved: boolean | undefined): { "Auxilia-Approval"?: string } {
  return approved ? { "Auxilia-Approval": "granted" } : {};
}
