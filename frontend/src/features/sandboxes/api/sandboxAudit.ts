import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { sandboxKeys } from "../../../api/keys";

/** GET /api/v1/audit?resource_type=sandbox&resource_id=… (admin): the sandbox's newest entries. */
export function useSandboxAudit(id: string, pageSize = 20) {
  return useQuery({
    queryKey: [...sandboxKeys.audit(id), pageSize],
    queryFn: () =>
      unwrap(api.GET("/api/v1/audit", { params: { query: { resource_type: "sandbox", resource_id: id, page_size: pageSize } } })),
  });
}
