import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { SecretHint } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";

/** GET /api/v1/sandboxes/{id}/secret-hint: whether a secret is stored, its last 4 characters and its length. */
export function getSecretHint(id: string): Promise<SecretHint> {
  return unwrap(api.GET("/api/v1/sandboxes/{id}/secret-hint", { params: { path: { id } } }));
}

export function useSecretHint(id: string | undefined) {
  return useQuery({
    queryKey: sandboxKeys.secretHint(id ?? ""),
    queryFn: () => getSecretHint(id!),
    enabled: id !== undefined,
    staleTime: 0,
  });
}
