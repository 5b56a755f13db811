import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import type { Me } from "../api/types";

export const meKey = ["me"] as const;

/** GET /api/v1/me, with an explicit token when one is being tried at sign-in. */
export function fetchMe(token?: string): Promise<Me> {
  return unwrap(
    api.GET("/api/v1/me", token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
  );
}

export function useMe(enabled: boolean) {
  return useQuery({ queryKey: meKey, queryFn: () => fetchMe(), enabled, retry: false, staleTime: Infinity });
}
