import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import { tokenKeys } from "../../../api/keys";
import { useToast } from "../../../ui/Toasts";

/** DELETE /api/v1/tokens/{id}: the token stops working at once. */
export async function revokeToken(id: string): Promise<void> {
  await unwrap(api.DELETE("/api/v1/tokens/{id}", { params: { path: { id } } }));
}

export function useRevokeToken() {
  const queryClient = useQueryClient();
  const notify = useToast();
  return useMutation({
    mutationFn: revokeToken,
    onSuccess: () => {
      notify("Token revoked: it no longer works.");
      return queryClient.invalidateQueries({ queryKey: tokenKeys.list() });
    },
  });
}
