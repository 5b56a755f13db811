import { useQuery, type QueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../api/client";
import type { Me } from "../api/types";
import { tokenStore } from "../shared/tokenStore";

export const meKey = ["me"] as const;

/** GET /api/v1/me, with an explicit token when one is being tried at sign-in. */
export function fetchMe(token?: string): Promise<Me> {
  return unwrap(
    api.GET("/api/v1/me", token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
  );
}

const meQuery = { queryKey: meKey, queryFn: () => fetchMe(), retry: false, staleTime: Infinity } as const;

/** Ends the console session at the server (a token needs nothing there). */
export async function logout(): Promise<void> {
  const csrf = tokenStore.csrf();
  if (tokenStore.get() !== null || csrf === null) return;
  await api.POST("/auth/logout", { params: { header: { "X-CSRF-Token": csrf } } });
}

export function useMe(enabled: boolean) {
  return useQuery({ ...meQuery, enabled });
}

/** Asks who the stored token belongs to as the app starts, before anything renders; settles with the answer. */
export function prefetchMe(queryClient: QueryClient): Promise<void> {
  return tokenStore.signedIn() ? queryClient.prefetchQuery(meQuery) : Promise.resolve();
}
