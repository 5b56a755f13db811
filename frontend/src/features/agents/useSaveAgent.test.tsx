import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import { fakeApi, problem } from "../../test/fakeApi";
import { agentDraftOf, type AgentDraft } from "./agentDraft";
import type { VersionedAgent } from "./api/getAgent";
import { useSaveAgent } from "./useSaveAgent";

function agent(name: string) {
  return {
    id: "a1",
    name,
    description: "",
    emoji: "🤖",
    color: "#6366f1",
    sandbox: null,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  };
}

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

describe("Saving an agent", () => {
  it("guards the binding with the agent's version, and retries a failed bind from the saved version", async () => {
    const v3 = agent("Analyst");
    const v4 = agent("Analyst 2");
    const api = fakeApi({
      "PATCH /api/v1/agents/a1": { body: v4, headers: { ETag: '"4"' } },
      "PUT /api/v1/agents/a1/sandbox": [
        problem(422, "validation_failed", "The request has invalid fields.", { errors: [{ field: "tools.grep", message: "x" }] }),
        { body: { sandbox_id: "s1", name: "Box", provider: "local", url: "", tools: {} }, headers: { ETag: '"5"' } },
      ],
      "GET /api/v1/agents/a1": { body: v4, headers: { ETag: '"5"' } },
    });
    const { result } = renderHook(() => useSaveAgent(), { wrapper });

    let base: VersionedAgent = { agent: v3, etag: '"3"' };
    let baseline: AgentDraft = agentDraftOf(base);
    const draft: AgentDraft = {
      ...baseline,
      name: "Analyst 2",
      binding: { sandboxId: "s1", name: "Box", provider: "local", url: "", tools: {} },
    };
    const onAgentSaved = (saved: VersionedAgent) => {
      base = saved;
      baseline = { ...agentDraftOf(saved), binding: baseline.binding };
    };

    await act(async () => {
      await expect(result.current.save({ base, baseline, draft, onAgentSaved })).rejects.toThrow();
    });
    // The retry patches nothing more: the name was saved as version 4, which the bind now expects.
    await act(async () => {
      await result.current.save({ base, baseline, draft, onAgentSaved });
    });

    expect(api.callsTo("PATCH", "/api/v1/agents/a1").map((c) => c.headers.get("If-Match"))).toEqual(['"3"']);
    expect(api.callsTo("PUT", "/api/v1/agents/a1/sandbox").map((c) => c.headers.get("If-Match"))).toEqual(['"4"', '"4"']);
  });
});
