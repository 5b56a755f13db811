import { useQuery } from "@tanstack/react-query";
import { api, unwrap } from "../../../api/client";
import type { Tool } from "../../../api/types";
import { toolKeys } from "../../../api/keys";

/** GET /api/v1/tools: the sandbox tools a run offers, in the order they are shown. */
export async function listTools(): Promise<Tool[]> {
  const { items } = await unwrap(api.GET("/api/v1/tools"));
  return items;
}

export function useTools() {
  return useQuery({ queryKey: toolKeys.catalogue, queryFn: listTools, staleTime: 5 * 60_000 });
}
