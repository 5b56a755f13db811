import { useInfiniteQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { paths } from "../../../api/schema.gen";
import type { AuditFilters } from "../filters";
import { auditKeys } from "./keys";

type AuditQuery = NonNullable<paths["/api/v1/audit"]["get"]["parameters"]["query"]>;

export const auditPageSize = 25;

/** GET /api/v1/audit (admin): one page, newest first. */
export function listAudit(filters: AuditFilters, pageToken: string) {
  const query = { ...filters, page_size: auditPageSize, ...(pageToken ? { page_token: pageToken } : {}) } as AuditQuery;
  return unwrap(api.GET("/api/v1/audit", { params: { query } }));
}

/** The audit log, a page at a time: fetchNextPage follows next_page_token. */
export function useAuditLog(filters: AuditFilters) {
  return useInfiniteQuery({
    queryKey: auditKeys.list(filters),
    queryFn: ({ pageParam }) => listAudit(filters, pageParam),
    initialPageParam: "",
    getNextPageParam: (last) => last.next_page_token || undefined,
  });
}
