import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Sandbox, SandboxCreate } from "../../../api/types";
import { sandboxKeys } from "../../../api/keys";
import { useToast } from "../../../ui/Toasts";

/** POST /api/v1/sandboxes. */
export function createSandbox(body: SandboxCreate): Promise<Sandbox> {
  return unwrap(api.POST("/api/v1/sandboxes", { body }));
}

export function useCreateSandbox() {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: createSandbox,
    onSuccess: (sandbox) => {
      notify(`Added sandbox ${sandbox.name}.`);
      return queryClient.invalidateQueries({ queryKey: sandboxKeys.list() });
    },
  });
}
