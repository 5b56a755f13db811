import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Sandbox, SandboxPatch } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";
import { useToast } from "../../../ui/Toasts";

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
    onSuccess: (sandbox) => {
      notify(`Saved ${sandbox.name}.`);
      return queryClient.invalidateQueries({ queryKey: sandboxKeys.all });
    },
  });
}
