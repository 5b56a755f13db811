import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Sandbox, SandboxPatch } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";
import { useToast } from "../../../ui/Toasts";
import { refreshHealth } from "./probeSandbox";

export interface SandboxPatchRequest {
  id: string;
  /** A JSON merge patch: members left out stay, null resets to the default. */
  patch: SandboxPatch;
  etag: string | null;
}

/** PATCH /api/v1/sandboxes/{id} with If-Match. */
export function patchSandbox({ id, patch, etag }: SandboxPatchRequest): Promise<Sandbox> {
  return unwrap(
    api.PATCH("/api/v1/sandboxes/{id}", {
      params: { path: { id }, header: etag ? { "If-Match": etag } : {} },
      body: patch,
      headers: { "Content-Type": "application/merge-patch+json" },
    }),
  );
}

export function usePatchSandbox() {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: patchSandbox,
    onSuccess: (sandbox, { id, patch }) => {
      notify(`Saved ${sandbox.name}.`);
      // A new url, secret or config may reach the provider differently: the old health no longer says.
      if ("url" in patch || "secret" in patch || "config" in patch) refreshHealth(queryClient, id);
      return queryClient.invalidateQueries({ queryKey: sandboxKeys.all });
    },
  });
}
