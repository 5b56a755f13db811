import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { ProbeResult, SandboxPatch } from "../../../api/types";
import { sandboxKeys } from "./keys";

export interface SandboxProbeRequest {
  id: string;
  /** Changes to try without saving; without them the probe updates the sandbox's health. */
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
    onSuccess: (_result, { patch }) => {
      if (!patch) void queryClient.invalidateQueries({ queryKey: sandboxKeys.list() });
    },
  });
}
