import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, renderHook } from "@testing-library/react";
import type { ReactNode } from "react";
import { describe, expect, it } from "vitest";
import type { Binding } from "../../api/types";
import { fakeApi, problem } from "../../test/fakeApi";
import { agentDraftOf, baselineAfter, type AgentDraft, type SaveStep } from "./agentDraft";
import type { VersionedAgent } from "./api/getAgent";
import { defaultApprovalRule } from "./tools";
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
    managed_by: "",
  };
}

const box = { sandboxId: "s1", name: "Box", provider: "local", url: "", tools: {}, approval: defaultApprovalRule };
const boxBinding: Binding = {
  sandbox_id: "s1",
  name: "Box",
  provider: "local",
  url: "",
  tools: { execute: "always_allow", read_file: "always_allow", write_file: "always_allow", edit_file: "always_allow", ls: "always_allow", grep: "always_allow", glob: "always_allow" },
  approval: defaultApprovalRule,
};

function wrapper({ children }: { children: ReactNode }) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

/** The editor's state across saves, moved on by each step as the editor moves it. */
function editorState(saved: VersionedAgent) {
  const state = {
    base: saved,
    baseline: agentDraftOf(saved),
    onSaved: (step: SaveStep) => {
      state.base = step.saved;
      state.baseline = baselineAfter(state.baseline, step);
    },
  };
  return state;
}

describe("Saving an agent", () => {
  it("guards the binding with the agent's version, and retries a failed bind from the saved version", async () => {
    const v4 = agent("Analyst 2");
    const api = fakeApi({
      "PATCH /api/v1/agents/a1": { body: v4, headers: { ETag: '"4"' } },
      "PUT /api/v1/agents/a1/sandbox": [
        problem(422, "validation_failed", "The request has invalid fields.", { errors: [{ field: "tools.grep", message: "x" }] }),
        { body: boxBinding, headers: { ETag: '"5"' } },
      ],
      "GET /api/v1/agents/a1": { body: v4, headers: { ETag: '"5"' } },
    });
    const { result } = renderHook(() => useSaveAgent(), { wrapper });
    const editor = editorState({ agent: agent("Analyst"), etag: '"3"' });
    const draft: AgentDraft = { ...editor.baseline, name: "Analyst 2", binding: box };

    await act(async () => {
      await expect(result.current.save({ ...editor, draft })).rejects.toThrow();
    });
    // The retry patches nothing more: the name was saved as version 4, which the bind now expects.
    await act(async () => {
      await result.current.save({ ...editor, draft });
    });

    expect(api.callsTo("PATCH", "/api/v1/agents/a1").map((c) => c.headers.get("If-Match"))).toEqual(['"3"']);
    expect(api.callsTo("PUT", "/api/v1/agents/a1/sandbox").map((c) => c.headers.get("If-Match"))).toEqual(['"4"', '"4"']);
  });

  it("goes on from the version a binding made when reading the agent back fails", async () => {
    const api = fakeApi({
      "PUT /api/v1/agents/a1/sandbox": { body: boxBinding, headers: { ETag: '"4"' } },
      "GET /api/v1/agents/a1": [problem(503, "unavailable", "Try again."), { body: agent("Renamed"), headers: { ETag: '"5"' } }],
      "PATCH /api/v1/agents/a1": { body: agent("Renamed"), headers: { ETag: '"5"' } },
    });
    const { result } = renderHook(() => useSaveAgent(), { wrapper });
    const editor = editorState({ agent: agent("Analyst"), etag: '"3"' });

    await act(async () => {
      await expect(result.current.save({ ...editor, draft: { ...editor.baseline, binding: box } })).rejects.toThrow();
    });
    expect(editor.baseline.binding).toEqual(box);
    await act(async () => {
      await result.current.save({ ...editor, draft: { ...editor.baseline, name: "Renamed" } });
    });

    expect(api.callsTo("PUT", "/api/v1/agents/a1/sandbox")).toHaveLength(1);
    expect(api.callsTo("PATCH", "/api/v1/agents/a1").map((c) => c.headers.get("If-Match"))).toEqual(['"4"']);
  });

  it("takes the new version from removing a binding", async () => {
    const api = fakeApi({
      "DELETE /api/v1/agents/a1/sandbox": { status: 204, headers: { ETag: '"4"' } },
      "GET /api/v1/agents/a1": [problem(503, "unavailable", "Try again."), { body: agent("Renamed"), headers: { ETag: '"5"' } }],
      "PATCH /api/v1/agents/a1": { body: agent("Renamed"), headers: { ETag: '"5"' } },
    });
    const { result } = renderHook(() => useSaveAgent(), { wrapper });
    const editor = editorState({ agent: { ...agent("Analyst"), sandbox: boxBinding }, etag: '"3"' });

    await act(async () => {
      await expect(result.current.save({ ...editor, draft: { ...editor.baseline, binding: null } })).rejects.toThrow();
    });
    await act(async () => {
      await result.current.save({ ...editor, draft: { ...editor.baseline, name: "Renamed" } });
    });

    expect(api.callsTo("DELETE", "/api/v1/agents/a1/sandbox").map((c) => c.headers.get("If-Match"))).toEqual(['"3"']);
    expect(api.callsTo("PATCH", "/api/v1/agents/a1").map((c) => c.headers.get("If-Match"))).toEqual(['"4"']);
  });
});
