import { useQuery } from "@tanstack/react-query";
import { api, apiBase, unwrap } from "../../../api/client";
import { ApiError, toProblem } from "../../../api/problem";
import type { components } from "../../../api/schema.gen";
import { tokenStore } from "../../../shared/tokenStore";

export type Usage = components["schemas"]["Usage"];
export type UsageRow = components["schemas"]["UsageRow"];
export type UsageGroup = "sandbox" | "agent" | "thread" | "provider";

export interface UsageSpan {
  from: string;
  to: string;
}

/** GET /api/v1/usage by day over span, split by group (admins), or the workspace's totals. */
export function useUsage(span: UsageSpan, group?: UsageGroup, enabled = true) {
  return useQuery({
    queryKey: ["usage", span.from, span.to, group ?? "total"],
    enabled,
    // The JSON form: the answer's other form, text/csv, is downloadUsageCSV's.
    queryFn: () =>
      unwrap(
        api.GET("/api/v1/usage", {
          params: { query: { from: span.from, to: span.to, granularity: "day", ...(group ? { group_by: group } : {}) } },
        }),
      ) as Promise<Usage>,
  });
}

/** The same rows as CSV (Accept: text/csv), saved by the browser as a file. */
export async function downloadUsageCSV(span: UsageSpan, group?: UsageGroup) {
  const query = new URLSearchParams({ from: span.from, to: span.to, granularity: "day", ...(group ? { group_by: group } : {}) });
  const res = await fetch(`${apiBase}/api/v1/usage?${query}`, {
    headers: { Accept: "text/csv", Authorization: `Bearer ${tokenStore.get() ?? ""}` },
  });
  if (!res.ok) {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
    throw new ApiError(res.status, toProblem(res.status, body, res.statusText));
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = `usage-${span.from.slice(0, 10)}-${group ?? "total"}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}
