import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { fakeApi, problem } from "../../test/fakeApi";
import { renderSignedIn } from "../../test/render";
import { RunStarter } from "./RunStarter";

const agent = {
  id: "a1",
  name: "Analyst",
  description: "",
  emoji: "📊",
  color: "#1f6feb",
  sandbox: { sandbox_id: "s1", name: "Team OpenSandbox", provider: "opensandbox", url: "", tools: {} },
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
};

describe("Run starter", () => {
  it("opens with the agent the link names picked (an agent's \"Run this agent\" link)", async () => {
    const builder = { ...agent, id: "a2", name: "Builder" };
    fakeApi({
      "GET /api/v1/agents": { body: { items: [agent, builder], next_page_token: "" } },
      "GET /api/v1/agents/a2/threads": { body: { items: [], next_page_token: "" } },
    });
    renderSignedIn(<RunStarter onStarted={() => {}} />, { route: "/runs?agent=a2" });
    const form = await screen.findByRole("form", { name: "Start a run" });
    expect(await within(form).findByRole("combobox", { name: "Agent" })).toHaveValue("a2");
  });

  it("shows only the server's line when the sandbox is not available, and starts nothing", async () => {
    fakeApi({
      "GET /api/v1/agents": { body: { items: [agent], next_page_token: "" } },
      "GET /api/v1/agents/a1/threads": { body: { items: [], next_page_token: "" } },
      "POST /api/v1/agents/a1/threads/t-1/runs": problem(
        409,
        "sandbox_unavailable",
        "Sandbox 'Team OpenSandbox' is not available: the provider could not be reached",
        { sandbox_id: "s1", sandbox_name: "Team OpenSandbox" },
      ),
    });
    const onStarted = vi.fn();
    const user = userEvent.setup();
    renderSignedIn(<RunStarter onStarted={onStarted} />);

    const thread = await screen.findByRole("textbox", { name: "New thread id" });
    await user.clear(thread);
    await user.type(thread, "t-1");
    await user.click(screen.getByRole("button", { name: "Start run" }));

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(/^Sandbox 'Team OpenSandbox' is not available: the provider could not be reached$/);
    expect(onStarted).not.toHaveBeenCalled();
  });
});
