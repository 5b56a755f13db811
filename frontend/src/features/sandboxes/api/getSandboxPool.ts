import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Sandbox, SandboxPool } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";

/** The warm pool a sandbox's config asks for: its size, 0 when none. */
export function poolSize(sandbox: Sandbox): number {
  const pool = (sandbox.config as { pool?: { size?: unknown } }).pool;
  return typeof pool?.size === "number" ? pool.size : 0;
}

/** GET /api/v1/sandboxes/{id}'s pool, read again every 10 s until every instance is ready. */
export function useSandboxPool(id: string, enabled: boolean) {
  return useQuery({
    queryKey: sandboxKeys.pool(id),
    queryFn: async (): Promise<SandboxPool | undefined> =>
      (await unwrap(api.GET("/api/v1/sandboxes/{id}", { params: { path: { id } } }))).pool,
    enabled,
    refetchInterval: (query) => (query.state.data?.state === "ready" ? false : 10_000),
  });
}
