import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import type { Agent } from "./types";
import { agentKeys } from "./keys";

/** GET /api/v1/agents, every page. */
export async function listAgents(): Promise<Agent[]> {
  const items: Agent[] = [];
  let pageToken = "";
  do {
    const page = await unwrap(
      api.GET("/api/v1/agents", { params: { query: { page_size: 200, ...(pageToken ? { page_token: pageToken } : {}) } } }),
    );
    items.push(...page.items);
    pageToken = page.next_page_token;
  } while (pageToken);
  return items;
}

export function useAgents() {
  return useQuery({ queryKey: agentKeys.list(), queryFn: listAgents });
}
