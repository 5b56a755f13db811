import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import type { Sandbox } from "./types";
import { sandboxKeys } from "./keys";

/** GET /api/v1/sandboxes, every page (a workspace has a handful, not thousands). */
export async function listSandboxes(): Promise<Sandbox[]> {
  const items: Sandbox[] = [];
  let pageToken = "";
  do {
    const page = await unwrap(
      api.GET("/api/v1/sandboxes", { params: { query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) } } }),
    );
    items.push(...page.items);
    pageToken = page.next_page_token;
  } while (pageToken);
  return items;
}

export function useSandboxes() {
  // Health changes as runs probe the sandboxes; a minute keeps "checked N min ago" honest.
  return useQuery({ queryKey: sandboxKeys.list(), queryFn: listSandboxes, refetchInterval: 60_000 });
}
