import { useMutation } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Binding, BindingPut } from "../../../api/types";

/** PUT /api/v1/agents/{id}/sandbox: binds a sandbox, replacing any earlier one. */
export function putBinding({ agentId, body }: { agentId: string; body: BindingPut }): Promise<Binding> {
  return unwrap(api.PUT("/api/v1/agents/{id}/sandbox", { params: { path: { id: agentId } }, body }));
}

export function usePutBinding() {
  return useMutation({ mutationFn: putBinding });
}
