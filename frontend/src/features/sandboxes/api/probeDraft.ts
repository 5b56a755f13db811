import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { ProbeResult, SandboxCreate } from "../../../api/types";

/** POST /api/v1/sandboxes/probe: tests a configuration that is not saved. */
export function probeDraft(body: SandboxCreate): Promise<ProbeResult> {
  return unwrap(api.POST("/api/v1/sandboxes/probe", { body }));
}

export function useProbeDraft() {
  return useMutation({ mutationFn: probeDraft });
}
