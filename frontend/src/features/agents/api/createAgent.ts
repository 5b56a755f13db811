import { api, unwrapWithETag } from "../../../api/client";
import type { AgentCreate } from "../../../api/types";
import type { VersionedAgent } from "./getAgent";

/** POST /api/v1/agents. */
export async function createAgent(body: AgentCreate): Promise<VersionedAgent> {
  const { data, etag } = await unwrapWithETag(api.POST("/api/v1/agents", { body }));
  return { agent: data, etag };
}
