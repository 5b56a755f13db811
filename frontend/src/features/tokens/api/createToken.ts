import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { CreatedToken, TokenCreate } from "../../../api/types";
import { tokenKeys } from "../../../api/keys";

/** POST /api/v1/tokens: the answer holds the token's value, this once. */
export function createToken(body: TokenCreate): Promise<CreatedToken> {
  return unwrap(api.POST("/api/v1/tokens", { body }));
}

export function useCreateToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createToken,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.list() }),
  });
}
