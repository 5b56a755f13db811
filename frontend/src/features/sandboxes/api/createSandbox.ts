import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Sandbox, SandboxCreate } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";

/** POST /api/v1/sandboxes. */
export function createSandbox(body: SandboxCreate): Promise<Sandbox> {
  return unwrap(api.POST("/api/v1/sandboxes", { body }));
}

export function useCreateSandbox() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createSandbox,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sandboxKeys.list() }),
  });
}
