import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import type { Provider } from "./types";
import { sandboxKeys } from "./keys";

/** GET /api/v1/providers: each provider's fields, labels, defaults and config schema. */
export async function listProviders(): Promise<Provider[]> {
  const { items } = await unwrap(api.GET("/api/v1/providers"));
  return items;
}

export function useProviders() {
  return useQuery({ queryKey: sandboxKeys.providers, queryFn: listProviders, staleTime: 5 * 60_000 });
}
