import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import type { Token } from "./types";
import { tokenKeys } from "./keys";

/** GET /api/v1/tokens (admin), every page. */
export async function listTokens(): Promise<Token[]> {
  const items: Token[] = [];
  let pageToken = "";
  do {
    const page = await unwrap(
      api.GET("/api/v1/tokens", { params: { query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) } } }),
    );
    items.push(...page.items);
    pageToken = page.next_page_token;
  } while (pageToken);
  return items;
}

export function useTokens(enabled = true) {
  return useQuery({ queryKey: tokenKeys.list(), queryFn: listTokens, enabled });
}
