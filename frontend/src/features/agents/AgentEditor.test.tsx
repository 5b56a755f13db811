import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { fakeApi, problem } from "../../test/fakeApi";
import { providers, renderSignedIn } from "../../test/render";
import { AgentEditor } from "./AgentEditor";

function agent(name: string, description: string) {
  return {
    id: "a1",
    name,
    description,
    emoji: "🤖",
    color: "#6366f1",
    sandbox: null,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  };
}

describe("Agent editor", () => {
  it("after a 412, loads the other writer's changes under the person's own edits", async () => {
    const api = fakeApi({
      "GET /api/v1/providers": { body: { items: providers } },
      "PATCH /api/v1/agents/a1": [
        problem(412, "precondition_failed", "The agent changed since it was read (it is now at version 5): read it again."),
        { body: agent("Mine", "Theirs"), headers: { ETag: '"6"' } },
      ],
      // Someone else changed the description meanwhile.
      "GET /api/v1/agents/a1": [
        { body: agent("Analyst", "Theirs"), headers: { ETag: '"5"' } },
        { body: agent("Mine", "Theirs"), headers: { ETag: '"6"' } },
      ],
    });
    const user = userEvent.setup();
    renderSignedIn(<AgentEditor saved={{ agent: agent("Analyst", "Old"), etag: '"3"' }} />);

    const name = screen.getByRole("textbox", { name: /Name/ });
    await user.clear(name);
    await user.type(name, "Mine");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    await user.click(await screen.findByRole("button", { name: "Load their changes, keep mine" }));

    expect(await screen.findByDisplayValue("Theirs")).toBeInTheDocument();
    expect(name).toHaveValue("Mine");
    await user.click(screen.getByRole("button", { name: "Save changes" }));
    expect(await screen.findByText("Saved.")).toBeInTheDocument();

    const patches = api.callsTo("PATCH", "/api/v1/agents/a1");
    expect(patches.map((c) => c.headers.get("If-Match"))).toEqual(['"3"', '"5"']);
    expect(patches[1]?.body).toEqual({ name: "Mine" });
  });
});
