import { useMutation, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { ProbeResult, SandboxPatch } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";

export interface SandboxProbeRequest {
  id: string;
  /** Changes to try without saving; unless they touch url, secret or config, the probe updates the sandbox's health. */
  patch?: SandboxPatch;
}

/** POST /api/v1/sandboxes/{id}/probe. */
export function probeSandbox({ id, patch }: SandboxProbeRequest): Promise<ProbeResult> {
  return unwrap(
    api.POST("/api/v1/sandboxes/{id}/probe", {
      params: { path: { id } },
      ...(patch ? { body: patch, headers: { "Content-Type": "application/merge-patch+json" } } : {}),
    }),
  );
}

export function useProbeSandbox() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: probeSandbox,
    // A probe of the connection as saved is its health, with or without a patch of name or description.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sandboxKeys.list() }),
  });
}

/**
 * Probes a sandbox just saved, so the list shows its health at once rather
 * than "unknown" until the next health pass. Runs in the background: saving
 * does not wait for the provider's answer.
 */
export function refreshHealth(queryClient: QueryClient, id: string) {
  void probeSandbox({ id })
    .catch(() => undefined)
    .finally(() => queryClient.invalidateQueries({ queryKey: sandboxKeys.list() }));
}
